//! The gRPC services of the contract, read from the `.proto` files the
//! generator wrote (`a2a::proto::FILES`), compiled once on first use. Each rpc
//! calls the contract method the generated table gives it (`a2a::proto::RPCS`),
//! so the method table's facts (access, capability, streaming) hold for it
//! unchanged.

use a2a::{find_method, MethodDescriptor};
use prost_reflect::{DescriptorPool, MessageDescriptor};
use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};
use std::collections::HashMap;
use std::sync::LazyLock;

/// One rpc: its HTTP/2 path, the contract method it is, its messages.
#[derive(Debug)]
pub struct Rpc {
    /// `/<package>.<Service>/<Method>`.
    pub path: String,
    /// The contract method the rpc calls.
    pub method: &'static MethodDescriptor,
    /// The request message.
    pub input: MessageDescriptor,
    /// The response message (of each event, for a server stream).
    pub output: MessageDescriptor,
    /// The rpc answers with a stream of messages.
    pub server_streaming: bool,
}

/// Every rpc of every generated service.
#[derive(Debug)]
pub struct Service {
    rpcs: Vec<Rpc>,
    by_path: HashMap<String, usize>,
    by_method: HashMap<&'static str, usize>,
}

static CONTRACT: LazyLock<Result<Service, String>> =
    LazyLock::new(|| Service::compile(a2a::proto::FILES, a2a::proto::RPCS));

impl Service {
    /// The contract's services; an error says why the generated proto does
    /// not make them (which the generator's tests rule out).
    pub fn contract() -> Result<&'static Service, &'static str> {
        CONTRACT.as_ref().map_err(String::as_str)
    }

    /// Compiles `files` (name, text) and ties each rpc to the method `rpcs`
    /// (path, method) gives it.
    pub fn compile(
        files: &'static [(&'static str, &'static str)],
        rpcs: &[(&str, &str)],
    ) -> Result<Service, String> {
        let mut resolver = ChainFileResolver::new();
        resolver.add(Generated(files));
        resolver.add(GoogleFileResolver::new());
        let mut compiler = protox::Compiler::with_file_resolver(resolver);
        for (name, _) in files {
            compiler
                .open_file(name)
                .map_err(|e| format!("{name} does not compile: {e}"))?;
        }
        Service::from_pool(&compiler.descriptor_pool(), rpcs)
    }

    fn from_pool(pool: &DescriptorPool, table: &[(&str, &str)]) -> Result<Service, String> {
        let mut rpcs = Vec::new();
        for service in pool.services() {
            for rpc in service.methods() {
                if rpc.is_client_streaming() {
                    return Err(format!(
                        "{} streams requests; no contract method does",
                        rpc.full_name()
                    ));
                }
                let path = format!("/{}/{}", service.full_name(), rpc.name());
                let method = table
                    .iter()
                    .find(|(p, _)| *p == path)
                    .and_then(|(_, method)| find_method(method))
                    .filter(|m| m.is_dispatched())
                    .ok_or_else(|| format!("{} calls no method of the contract", rpc.full_name()))?;
                if method.streaming != rpc.is_server_streaming() {
                    return Err(format!(
                        "{} and the method `{}` disagree on streaming",
                        rpc.full_name(),
                        method.name
                    ));
                }
                rpcs.push(Rpc {
                    path,
                    method,
                    input: rpc.input(),
                    output: rpc.output(),
                    server_streaming: rpc.is_server_streaming(),
                });
            }
        }
        let by_path = rpcs
            .iter()
            .enumerate()
            .map(|(i, r)| (r.path.clone(), i))
            .collect();
        let by_method = rpcs.iter().enumerate().map(|(i, r)| (r.method.name, i)).collect();
        Ok(Service {
            rpcs,
            by_path,
            by_method,
        })
    }

    /// The rpc at an HTTP/2 path.
    pub fn find(&self, path: &str) -> Option<&Rpc> {
        self.by_path.get(path).map(|&i| &self.rpcs[i])
    }

    /// The rpc of a contract method, when one serves it.
    pub fn rpc_of(&self, method: &str) -> Option<&Rpc> {
        self.by_method.get(method).map(|&i| &self.rpcs[i])
    }

    /// Every rpc, in the order of the proto.
    pub fn rpcs(&self) -> impl Iterator<Item = &Rpc> {
        self.rpcs.iter()
    }
}

/// Resolves the generated files from their text.
struct Generated(&'static [(&'static str, &'static str)]);

impl FileResolver for Generated {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        match self.0.iter().find(|(file, _)| *file == name) {
            Some((_, text)) => File::from_source(name, text),
            None => Err(protox::Error::file_not_found(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dispatched_method_is_an_rpc() {
        let service = Service::contract().expect("the generated protos compile");
        let names: Vec<&str> = service.rpcs().map(|r| r.method.name).collect();
        let dispatched: Vec<&str> = a2a::METHODS
            .iter()
            .filter(|m| m.is_dispatched())
            .map(|m| m.name)
            .collect();
        assert_eq!(names, dispatched);
        let rpc = service
            .rpc_of("_cleveragents/plan/use")
            .expect("an extension rpc");
        assert_eq!(rpc.path, "/cleveragents.v1.CleverAgentsService/PlanUse");
        assert_eq!(rpc.input.full_name(), "cleveragents.v1.PlanUseParams");
        let events = service
            .rpc_of("_cleveragents/events/subscribe")
            .expect("a stream");
        assert!(events.server_streaming);
        let rpc = service.find("/lf.a2a.v1.A2AService/GetTask").expect("GetTask");
        assert_eq!(rpc.method.name, "GetTask");
        assert_eq!(rpc.input.full_name(), "lf.a2a.v1.GetTaskRequest");
        assert_eq!(rpc.output.full_name(), "lf.a2a.v1.Task");
        assert!(!rpc.server_streaming);
        let stream = service.rpc_of("SubscribeToTask").expect("SubscribeToTask");
        assert_eq!(stream.path, "/lf.a2a.v1.A2AService/SubscribeToTask");
        assert_eq!(stream.output.full_name(), "lf.a2a.v1.StreamResponse");
        assert!(stream.server_streaming);
        assert!(service.find("/lf.a2a.v1.A2AService/Nothing").is_none());
    }

    #[test]
    fn an_rpc_that_calls_no_method_is_refused() {
        let proto =
            "syntax = \"proto3\";\npackage x;\nmessage M {}\nservice S { rpc Nope(M) returns (M); }\n";
        let files = Box::leak(Box::new([("x.proto", proto)]));
        let error = Service::compile(files, &[]).unwrap_err();
        assert_eq!(error, "x.S.Nope calls no method of the contract");
        let error = Service::compile(files, &[("/x.S/Nope", "_cleveragents/nope")]).unwrap_err();
        assert_eq!(error, "x.S.Nope calls no method of the contract");
    }
}

//! The access facts of the method table: every dispatched method declares the
//! role it needs, and exactly the methods that act on no namespace say so.

use a2a::rpc::Access;

fn access_of(name: &str) -> (Option<Access>, bool) {
    let d = a2a::find_method(name).expect("method");
    (d.access, d.namespaced)
}

#[test]
fn every_dispatched_method_declares_its_access() {
    for d in a2a::METHODS.iter().filter(|d| d.is_dispatched()) {
        assert!(d.access.is_some(), "{} has no access in the schema", d.name);
    }
    let namespaceless: Vec<&str> = a2a::METHODS
        .iter()
        .filter(|d| d.is_dispatched() && !d.namespaced)
        .map(|d| d.name)
        .collect();
    assert_eq!(
        namespaceless,
        [
            "GetExtendedAgentCard",
            "_cleveragents/namespace/list",
            "_cleveragents/health/check"
        ]
    );
}

#[test]
fn sample_requirements() {
    assert_eq!(access_of("GetTask"), (Some(Access::Reader), true));
    assert_eq!(access_of("SendMessage"), (Some(Access::Writer), true));
    assert_eq!(
        access_of("_cleveragents/registry/actors/add"),
        (Some(Access::Writer), true)
    );
    assert_eq!(access_of("_cleveragents/plan/diff"), (Some(Access::Reader), true));
    assert_eq!(access_of("_cleveragents/sync/push"), (Some(Access::Admin), true));
    assert_eq!(
        access_of("_cleveragents/namespace/members"),
        (Some(Access::Admin), true)
    );
    assert!(!access_of("_cleveragents/namespace/list").1);
    assert!(!access_of("GetExtendedAgentCard").1);
}

mod authorize {
    use a2a::rpc::{authorize, Access, CallContext, Principal};
    use a2a::ErrorKind;
    use serde_json::{json, Value};

    fn alice() -> CallContext {
        CallContext {
            principal: Some(Principal {
                subject: "alice".into(),
                namespaces: [
                    ("team-a".to_string(), Access::Writer),
                    ("team-b".to_string(), Access::Reader),
                ]
                .into(),
            }),
            ..CallContext::default()
        }
    }

    /// The namespace a call resolves to: the same whether its params come as
    /// a value or as the text JSON-RPC hands over.
    fn run(ctx: CallContext, method: &str, params: Value) -> Result<Option<String>, a2a::Error> {
        let descriptor = a2a::find_method(method).expect("method");
        let mut by_value = ctx.clone();
        let from_value =
            authorize(&mut by_value, descriptor, &params.clone().into()).map(|()| by_value.namespace);
        let text = serde_json::value::RawValue::from_string(params.to_string()).expect("JSON");
        let mut by_text = ctx;
        let from_text = authorize(&mut by_text, descriptor, &text.into()).map(|()| by_text.namespace);
        assert_eq!(from_text, from_value, "{method} {params}");
        from_text
    }

    #[test]
    fn the_namespace_is_the_named_one_else_the_callers_else_the_contracts() {
        assert_eq!(
            run(alice(), "GetTask", json!({"id": "t", "tenant": "team-b"})),
            Ok(Some("team-b".into()))
        );
        let ctx = CallContext {
            default_namespace: Some("team-a".into()),
            ..alice()
        };
        assert_eq!(
            run(ctx.clone(), "GetTask", json!({"id": "t"})),
            Ok(Some("team-a".into()))
        );
        // A name is read without the blanks around it.
        assert_eq!(
            run(alice(), "GetTask", json!({"id": "t", "tenant": " team-b "})),
            Ok(Some("team-b".into()))
        );
        // A blank name names nothing.
        assert_eq!(
            run(ctx, "GetTask", json!({"id": "t", "tenant": "  "})),
            Ok(Some("team-a".into()))
        );
        let local = CallContext::default();
        assert_eq!(
            run(local.clone(), "_cleveragents/plan/list", json!({})),
            Ok(Some(a2a::DEFAULT_NAMESPACE.into()))
        );
        // Local mode holds every role, in any namespace.
        assert_eq!(
            run(local, "_cleveragents/sync/push", json!({"namespace": "x"})),
            Ok(Some("x".into()))
        );
        // Methods acting on no namespace resolve none.
        assert_eq!(run(alice(), "_cleveragents/namespace/list", json!({})), Ok(None));
    }

    #[test]
    fn no_role_is_not_found_in_the_methods_contract_and_a_lesser_role_is_forbidden() {
        let error = run(alice(), "GetTask", json!({"id": "t", "tenant": "team-c"})).unwrap_err();
        assert!(error.is(ErrorKind::TaskNotFound), "{error:?}");
        let error = run(
            alice(),
            "_cleveragents/registry/actors/list",
            json!({"namespace": "team-c"}),
        )
        .unwrap_err();
        assert!(error.is(ErrorKind::ExtNotFound), "{error:?}");
        let error = run(alice(), "SendMessage", json!({"tenant": "team-b"})).unwrap_err();
        assert!(error.is(ErrorKind::ExtAuthForbidden), "{error:?}");
        assert_eq!(error.metadata("requiredRole"), Some("writer"));
        assert_eq!(
            error.message,
            "`SendMessage` needs the writer role in namespace `team-b`; the caller is reader"
        );
        let error = run(
            alice(),
            "_cleveragents/namespace/members",
            json!({"namespace": "team-a"}),
        )
        .unwrap_err();
        assert_eq!(error.metadata("requiredRole"), Some("admin"));
    }
}

//! The HTTP+JSON route table the generator emits from the schemas: every
//! dispatched method is reachable, the standard ones at the paths of spec §11,
//! and no request could reach two methods.

use a2a::methods::markers::{
    CancelTask, GetTask, ListTaskPushNotificationConfigs, PlanList, SubscribeToTask,
};
use a2a::rpc::rest::{find_route, render_call, RouteLookup};
use a2a::rpc::Method;
use a2a::METHODS;
use serde_json::{json, Map, Value};

fn found(verb: &str, path: &str) -> (&'static str, Vec<(&'static str, String)>) {
    match find_route(METHODS, verb, path) {
        RouteLookup::Found(m) => (m.method.name, m.path_fields),
        other => panic!("{verb} {path}: {other:?}"),
    }
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[test]
fn every_dispatched_method_has_a_route_and_binding_methods_none() {
    for method in METHODS {
        assert_eq!(
            !method.http.is_empty(),
            method.is_dispatched(),
            "{}: routes {:?}",
            method.name,
            method.http
        );
    }
}

#[test]
fn no_two_routes_share_a_verb_and_template() {
    let mut seen = std::collections::BTreeSet::new();
    for method in METHODS {
        for route in method.http {
            assert!(
                seen.insert((route.verb, route.path)),
                "{} {} twice",
                route.verb,
                route.path
            );
        }
    }
}

#[test]
fn standard_paths_find_their_methods_with_the_path_fields() {
    assert_eq!(
        found("GET", "/tasks/t-1"),
        (GetTask::NAME, vec![("id", "t-1".into())])
    );
    assert_eq!(
        found("POST", "/tasks/t-1:cancel"),
        (CancelTask::NAME, vec![("id", "t-1".into())])
    );
    assert_eq!(found("POST", "/tasks/t-1:subscribe").0, SubscribeToTask::NAME);
    assert_eq!(found("GET", "/tasks/t-1:subscribe").0, SubscribeToTask::NAME);
    assert_eq!(
        found("GET", "/acme/tasks/t-1/pushNotificationConfigs"),
        (
            ListTaskPushNotificationConfigs::NAME,
            vec![("tenant", "acme".into()), ("taskId", "t-1".into())]
        )
    );
    assert_eq!(
        found("POST", "/_cleveragents/plan/list"),
        (PlanList::NAME, vec![])
    );
}

#[test]
fn a_known_path_with_another_verb_names_the_verbs_it_has() {
    match find_route(METHODS, "DELETE", "/tasks/t-1") {
        RouteLookup::WrongVerb(verbs) => assert_eq!(verbs, vec!["GET"]),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        find_route(METHODS, "GET", "/nothing/here"),
        RouteLookup::NotFound
    ));
}

#[test]
fn a_call_renders_on_the_tenant_route_only_when_it_names_a_tenant() {
    let plain = render_call(
        GetTask::descriptor(),
        &object(json!({"id": "t", "historyLength": 1})),
    )
    .expect("renders");
    assert_eq!(
        (plain.verb, plain.path.as_str(), plain.query.as_str()),
        ("GET", "/tasks/t", "historyLength=1")
    );
    let tenant = render_call(
        GetTask::descriptor(),
        &object(json!({"id": "t", "tenant": "acme"})),
    )
    .expect("renders");
    assert_eq!(
        (tenant.path.as_str(), tenant.query.as_str()),
        ("/acme/tasks/t", "")
    );
    let subscribe = render_call(SubscribeToTask::descriptor(), &object(json!({"id": "t"}))).expect("renders");
    assert_eq!((subscribe.verb, subscribe.body), ("POST", Some(json!({}))));
}

//! The clients: each runs a seeded random mix of operations (open a task,
//! continue one, cancel, read, subscribe and resume from the last event id,
//! register its webhook; add, show and update registry entries with the version last read)
//! through its [`Client`] (on random agents over HTTP, or through its front
//! in local mode) and records each in the history.
//!
//! Tasks are opened with the TCK executor's behaviours: `tck-multi-turn`
//! waits for input after every message until one starts with `done`;
//! `tck-cancel` works until canceled; `tck-complete-task` completes at once.

use crate::client::Client;
use crate::history::{Answer, History, Request};
use crate::wire::{self, Outcome};
use crate::Rng;
use a2a::ErrorKind;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The behaviours tasks are opened with, by weight.
const BEHAVIOURS: &[(&str, u64)] = &[("tck-multi-turn", 6), ("tck-cancel", 2), ("tck-complete-task", 2)];

/// How many of the newest tasks clients pick from: few enough that clients
/// meet on the same tasks.
const RECENT: usize = 12;

/// How many registry entries the clients contend on.
const ENTRIES: u64 = 3;
/// The shares of operations (in percent) on the registry and on plans.
const REGISTRY_SHARE: u64 = 12;
const PLAN_SHARE: u64 = 8;

/// The registry's methods the clients call (entries are skills).
const ADD: &str = "_cleveragents/registry/skills/add";
const UPDATE: &str = "_cleveragents/registry/skills/update";
pub const SHOW: &str = "_cleveragents/registry/skills/show";

/// The names of the registry entries a run with `seed` contends on.
pub fn registry_entries(seed: u64) -> impl Iterator<Item = String> {
    (0..ENTRIES).map(move |k| format!("chaos-{seed}-skill-{k}"))
}

/// A task some client was told about.
#[derive(Clone)]
struct Known {
    id: String,
    context_id: String,
    behaviour: &'static str,
}

/// What the clients share: the history, the tasks opened so far, and the
/// webhook receiver's URL.
pub struct Shared {
    pub history: History,
    tasks: Mutex<Vec<Known>>,
    /// The plans made so far.
    plans: Mutex<Vec<String>>,
    pub seed: u64,
    webhook: String,
}

/// The id every webhook the clients register has: registering it again
/// replaces it, so a task has at most one.
pub const HOOK: &str = "chaos-hook";

impl Shared {
    pub fn new(seed: u64, webhook: String) -> Shared {
        Shared {
            history: History::default(),
            tasks: Mutex::new(Vec::new()),
            plans: Mutex::new(Vec::new()),
            seed,
            webhook,
        }
    }

    fn pick_task(&self, rng: &mut Rng) -> Option<Known> {
        let tasks = self.tasks.lock().expect("tasks");
        let recent = &tasks[tasks.len().saturating_sub(RECENT)..];
        (!recent.is_empty()).then(|| recent[rng.below(recent.len() as u64) as usize].clone())
    }
}

fn message(message_id: &str, text: &str, task: Option<&Known>) -> Value {
    let mut message = json!({"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]});
    if let Some(task) = task {
        message["taskId"] = json!(task.id);
        message["contextId"] = json!(task.context_id);
    }
    message
}

/// A pause after a call that found no agent or no database, as a client
/// retrying would make, rather than a spin through failing calls.
fn back_off(outcome: &Outcome) {
    let failed = match outcome {
        Outcome::Unknown(_) => true,
        Outcome::Fail { code, .. } => *code == wire::NOT_CONNECTED,
        Outcome::Ok(_) => false,
    };
    if failed {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Client `client`'s operations through `to` until `stop` is set.
pub fn client(
    shared: Arc<Shared>,
    mut to: Box<dyn Client>,
    client: u64,
    stop: Arc<AtomicBool>,
    mut rng: Rng,
) {
    let agents = to.agents();
    let mut n = 0u64;
    // The generation of each task as this client last saw it.
    let mut generations: BTreeMap<String, u64> = BTreeMap::new();
    // What this client knows of each entry.
    let mut versions: BTreeMap<String, Option<u64>> = BTreeMap::new();
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let agent = rng.below(agents as u64) as usize;
        let history = &shared.history;
        let tag = format!("s{}-c{client}-{n}", shared.seed);
        if rng.below(100) < REGISTRY_SHARE {
            let name = registry_entries(shared.seed)
                .nth(rng.below(ENTRIES) as usize)
                .expect("an entry");
            let step = Registry {
                history,
                client,
                agent,
                name,
                tag,
            };
            step.run(to.as_mut(), &mut versions, &mut rng);
            continue;
        }
        if rng.below(100) < PLAN_SHARE {
            plan_step(&shared, to.as_mut(), client, agent, &mut rng);
            continue;
        }
        let choice = rng.below(100);
        let task = shared.pick_task(&mut rng);
        match (choice, task) {
            (0..=24, _) | (_, None) => {
                let total: u64 = BEHAVIOURS.iter().map(|(_, w)| w).sum();
                let mut pick = rng.below(total);
                let behaviour = BEHAVIOURS
                    .iter()
                    .find(|(_, w)| {
                        let hit = pick < *w;
                        pick = pick.saturating_sub(*w);
                        hit
                    })
                    .map_or("tck-multi-turn", |(b, _)| *b);
                let message_id = format!("{behaviour}-{tag}");
                let mut params = json!({"message": message(&message_id, "start", None)});
                let hook = rng.below(3) == 0;
                if hook {
                    params["configuration"]["taskPushNotificationConfig"] =
                        json!({"id": HOOK, "url": shared.webhook, "token": "chaos"});
                }
                // A task working until canceled would hold a blocking call for ever.
                if behaviour == "tck-cancel" {
                    params["configuration"]["returnImmediately"] = json!(true);
                }
                let invoked = history.invoke();
                let outcome = to.call(agent, "SendMessage", params);
                back_off(&outcome);
                saw(&mut generations, &outcome, "/task");
                if let Outcome::Ok(result) = &outcome {
                    let task = &result["task"];
                    if let (Some(id), Some(context_id)) = (task["id"].as_str(), task["contextId"].as_str()) {
                        shared.tasks.lock().expect("tasks").push(Known {
                            id: id.to_string(),
                            context_id: context_id.to_string(),
                            behaviour,
                        });
                    }
                }
                history.record(
                    client,
                    agent,
                    invoked,
                    Request::Open { message_id, hook },
                    Answer::Unary(outcome),
                );
            }
            (25..=49, Some(task)) => {
                // A continuation names the task's behaviour too, so a task
                // working until canceled goes on working.
                let message_id = format!("{}-more-{tag}", task.behaviour);
                let text = if rng.below(5) == 0 { "done" } else { "more" };
                let mut params = json!({"message": message(&message_id, text, Some(&task))});
                if task.behaviour == "tck-cancel" {
                    params["configuration"]["returnImmediately"] = json!(true);
                }
                // Half the messages are sent on the condition that the task
                // is as this client last saw it.
                let if_generation = generations.get(&task.id).copied().filter(|_| rng.below(2) == 0);
                if let Some(generation) = if_generation {
                    params["configuration"]["ifGenerationMatch"] = json!(generation);
                }
                let invoked = history.invoke();
                let outcome = to.call(agent, "SendMessage", params);
                back_off(&outcome);
                saw(&mut generations, &outcome, "/task");
                let request = Request::Continue {
                    task: task.id,
                    message_id,
                    if_generation,
                };
                history.record(client, agent, invoked, request, Answer::Unary(outcome));
            }
            (50..=59, Some(task)) => {
                let invoked = history.invoke();
                let outcome = to.call(agent, "CancelTask", json!({"id": task.id}));
                back_off(&outcome);
                history.record(
                    client,
                    agent,
                    invoked,
                    Request::Cancel { task: task.id },
                    Answer::Unary(outcome),
                );
            }
            (60..=74, Some(task)) => {
                let invoked = history.invoke();
                let outcome = to.call(agent, "GetTask", json!({"id": task.id}));
                back_off(&outcome);
                saw(&mut generations, &outcome, "");
                history.record(
                    client,
                    agent,
                    invoked,
                    Request::Get { task: task.id },
                    Answer::Unary(outcome),
                );
            }
            (75..=79, Some(task)) => {
                let params = json!({"taskId": task.id, "id": HOOK, "url": shared.webhook, "token": "chaos"});
                let invoked = history.invoke();
                let outcome = to.call(agent, "CreateTaskPushNotificationConfig", params);
                back_off(&outcome);
                let request = Request::PushCreate { task: task.id };
                history.record(client, agent, invoked, request, Answer::Unary(outcome));
            }
            (_, Some(task)) => {
                let window = Duration::from_millis(200 + rng.below(1_500));
                let invoked = history.invoke();
                let stream = to.subscribe(agent, &task.id, None, window);
                let last = stream.events.iter().rev().find_map(|(id, _)| *id);
                let ended = stream.ended;
                let request = Request::Subscribe {
                    task: task.id.clone(),
                    after: None,
                };
                history.record(client, agent, invoked, request, Answer::Stream(stream));
                // Resumed on another agent (where there are several), from the
                // last event seen.
                if let (Some(last), false) = (last, ended) {
                    let agent = (agent + 1 + rng.below(agents as u64 - 1) as usize) % agents;
                    let invoked = history.invoke();
                    let stream = to.subscribe(agent, &task.id, Some(last), window);
                    let request = Request::Subscribe {
                        task: task.id,
                        after: Some(last),
                    };
                    history.record(client, agent, invoked, request, Answer::Stream(stream));
                }
            }
        }
    }
}

/// Notes the generation of the task an answer holds at `pointer`.
fn saw(generations: &mut BTreeMap<String, u64>, outcome: &Outcome, pointer: &str) {
    let Outcome::Ok(result) = outcome else { return };
    let Some(task) = result.pointer(pointer) else {
        return;
    };
    if let (Some(id), Some(generation)) = (task["id"].as_str(), task["generation"].as_u64()) {
        generations.insert(id.to_string(), generation);
    }
}

/// One registry operation of a client on entry `name`: a read, or a write
/// from the version the client last read (an add when it knows none), its
/// description the operation's unique tag.
struct Registry<'a> {
    history: &'a History,
    client: u64,
    agent: usize,
    name: String,
    tag: String,
}

impl Registry<'_> {
    /// `versions` holds, per entry, what the client knows: the version it
    /// last read, or nothing yet though it exists; no key when it has not
    /// seen the entry (so it adds it).
    fn run(self, to: &mut dyn Client, versions: &mut BTreeMap<String, Option<u64>>, rng: &mut Rng) {
        let known = versions.get(&self.name).copied();
        let show = (
            SHOW,
            json!({"name": self.name}),
            Request::RegistryShow {
                name: self.name.clone(),
            },
        );
        let (method, params, request) = match known {
            None => (
                ADD,
                json!({"skill": {"name": self.name, "description": self.tag}}),
                Request::RegistryAdd {
                    name: self.name.clone(),
                    tag: self.tag.clone(),
                },
            ),
            Some(Some(expected)) if rng.below(3) > 0 => (
                UPDATE,
                json!({"expectedVersion": expected, "skill": {"name": self.name, "description": self.tag}}),
                Request::RegistryUpdate {
                    name: self.name.clone(),
                    expected,
                    tag: self.tag.clone(),
                },
            ),
            Some(_) => show,
        };
        let invoked = self.history.invoke();
        let outcome = to.call(self.agent, method, params);
        back_off(&outcome);
        // What the client knows now: the version it was shown, or that the
        // entry exists (it reads again before it writes again).
        let told = match &outcome {
            Outcome::Ok(entry) => entry["version"].as_u64(),
            _ => None,
        };
        let exists = told.is_some()
            || known.is_some()
            || matches!(&outcome, Outcome::Fail { code, .. } if *code == ErrorKind::ExtAlreadyExists.code());
        if exists {
            versions.insert(self.name.clone(), told);
        }
        let answer = Answer::Unary(outcome);
        self.history
            .record(self.client, self.agent, invoked, request, answer);
    }
}

/// The registry entries plans are made from: a project, a profile that
/// asks for approval, and an action whose first step asks for it and
/// whose second writes a file. Made once, before the faults (a call that
/// failed is made again; one that was done is answered "already exists").
pub fn prepare_plans(to: &mut dyn Client, seed: u64) {
    let name = format!("chaos-{seed}");
    let entries = [
        (
            "_cleveragents/registry/projects/add",
            json!({"project": {"name": name, "files": [{"path": "README.md", "mediaType": "text/markdown", "text": "# Chaos\n"}]}}),
        ),
        (
            "_cleveragents/registry/automation-profiles/add",
            json!({"automationProfile": {"name": name, "approvalMode": "APPROVAL_MODE_MANUAL", "budget": {"maxFilesChanged": 5}}}),
        ),
        (
            "_cleveragents/registry/actions/add",
            json!({"action": {"name": name, "automationProfile": name, "steps": [
                {"id": "approve", "name": "Approve", "tool": "approval", "arguments": {"question": "Write it?"}},
                {"id": "write", "name": "Write", "tool": "write-file", "arguments": {"path": "OUT.md", "content": "done\n"}}]}}),
        ),
    ];
    for (method, params) in entries {
        let mut tries = 0;
        loop {
            match to.call(0, method, params.clone()) {
                Outcome::Ok(_) => break,
                Outcome::Fail { code, .. } if code == ErrorKind::ExtAlreadyExists.code() => break,
                failed if tries == 20 => panic!("{method} {params}: not made, the last try {failed:?}"),
                _ => tries += 1,
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

/// One plan operation: make a plan of the run's action, execute one, read
/// one and answer the prompt it waits on (approve mostly), or cancel one.
fn plan_step(shared: &Shared, to: &mut dyn Client, client: u64, agent: usize, rng: &mut Rng) {
    let history = &shared.history;
    let plan = {
        let plans = shared.plans.lock().expect("plans");
        let recent = &plans[plans.len().saturating_sub(RECENT)..];
        (!recent.is_empty()).then(|| recent[rng.below(recent.len() as u64) as usize].clone())
    };
    let choice = rng.below(100);
    let Some(plan) = plan.filter(|_| choice >= 20) else {
        let name = format!("chaos-{}", shared.seed);
        let invoked = history.invoke();
        let outcome = to.call(
            agent,
            "_cleveragents/plan/use",
            json!({"action": name, "project": name}),
        );
        back_off(&outcome);
        if let Outcome::Ok(made) = &outcome {
            if let Some(id) = made["id"].as_str() {
                shared.plans.lock().expect("plans").push(id.to_string());
            }
        }
        history.record(client, agent, invoked, Request::PlanUse, Answer::Unary(outcome));
        return;
    };
    let params = json!({"planId": plan});
    let (method, request) = match choice {
        20..=44 => (
            "_cleveragents/plan/execute",
            Request::PlanExecute { plan: plan.clone() },
        ),
        45..=89 => (
            "_cleveragents/plan/status",
            Request::PlanStatus { plan: plan.clone() },
        ),
        _ => (
            "_cleveragents/plan/cancel",
            Request::PlanCancel { plan: plan.clone() },
        ),
    };
    let invoked = history.invoke();
    let outcome = to.call(agent, method, params);
    back_off(&outcome);
    let prompt = match &outcome {
        Outcome::Ok(status) => status
            .pointer("/pendingPrompt/promptId")
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    };
    history.record(client, agent, invoked, request, Answer::Unary(outcome));
    // A prompt read is answered at once, on another agent where there are several.
    if let Some(prompt) = prompt {
        let agent = (agent + 1) % to.agents();
        let approve = rng.below(5) > 0;
        let decision = if approve {
            "PROMPT_DECISION_APPROVE"
        } else {
            "PROMPT_DECISION_REJECT"
        };
        let params = json!({"planId": plan, "promptId": prompt, "decision": decision});
        let invoked = history.invoke();
        let outcome = to.call(agent, "_cleveragents/plan/prompt", params);
        back_off(&outcome);
        let request = Request::PlanPrompt {
            plan,
            prompt,
            approve,
        };
        history.record(client, agent, invoked, request, Answer::Unary(outcome));
    }
}

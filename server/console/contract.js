// The package's browser entry (bindings/typescript/src/browser.ts) bundled by its test.sh; do not edit.

// src/gen/json.ts
function oneOfCase(value, cases) {
  return cases.find((name) => Object.prototype.hasOwnProperty.call(value, name));
}

// src/gen/a2a.ts
var TASK_STATE_VALUES = ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"];
var PART_CASES = ["text", "raw", "url", "data"];
function partCase(value) {
  return oneOfCase(value, PART_CASES);
}
var ROLE_VALUES = ["ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"];
var SECURITY_SCHEME_CASES = ["apiKeySecurityScheme", "httpAuthSecurityScheme", "oauth2SecurityScheme", "openIdConnectSecurityScheme", "mtlsSecurityScheme"];
function securitySchemeCase(value) {
  return oneOfCase(value, SECURITY_SCHEME_CASES);
}
var O_AUTH_FLOWS_CASES = ["authorizationCode", "clientCredentials", "implicit", "password", "deviceCode"];
function oAuthFlowsCase(value) {
  return oneOfCase(value, O_AUTH_FLOWS_CASES);
}
var SEND_MESSAGE_RESPONSE_CASES = ["task", "message"];
function sendMessageResponseCase(value) {
  return oneOfCase(value, SEND_MESSAGE_RESPONSE_CASES);
}
var STREAM_RESPONSE_CASES = ["task", "message", "statusUpdate", "artifactUpdate"];
function streamResponseCase(value) {
  return oneOfCase(value, STREAM_RESPONSE_CASES);
}

// src/gen/types.ts
var ACTOR_KIND_VALUES = ["ACTOR_KIND_AGENT", "ACTOR_KIND_HUMAN"];
var APPROVAL_MODE_VALUES = ["APPROVAL_MODE_MANUAL", "APPROVAL_MODE_AUTO"];
var CONFIGURATION_SOURCE_VALUES = ["CONFIGURATION_SOURCE_DEFAULT", "CONFIGURATION_SOURCE_FILE", "CONFIGURATION_SOURCE_ENVIRONMENT", "CONFIGURATION_SOURCE_COMMAND_LINE"];
var CONTEXT_EXCLUSION_REASON_VALUES = ["CONTEXT_EXCLUSION_REASON_NOT_INCLUDED", "CONTEXT_EXCLUSION_REASON_EXCLUDED_BY_PATTERN", "CONTEXT_EXCLUSION_REASON_BINARY"];
var CONTEXT_ITEM_KIND_VALUES = ["CONTEXT_ITEM_KIND_FILE", "CONTEXT_ITEM_KIND_RESOURCE"];
var DECISION_NODE_KIND_VALUES = ["DECISION_NODE_KIND_GOAL", "DECISION_NODE_KIND_STEP", "DECISION_NODE_KIND_DECISION", "DECISION_NODE_KIND_ALTERNATIVE", "DECISION_NODE_KIND_TOOL_CALL", "DECISION_NODE_KIND_VALIDATION", "DECISION_NODE_KIND_APPROVAL"];
var DIAGNOSTIC_CHECK_KIND_VALUES = ["DIAGNOSTIC_CHECK_KIND_STORE_INTEGRITY", "DIAGNOSTIC_CHECK_KIND_VERSIONS", "DIAGNOSTIC_CHECK_KIND_CONFIGURATION"];
var DIAGNOSTIC_OUTCOME_VALUES = ["DIAGNOSTIC_OUTCOME_PASS", "DIAGNOSTIC_OUTCOME_WARN", "DIAGNOSTIC_OUTCOME_FAIL"];
var FILE_CHANGE_KIND_VALUES = ["FILE_CHANGE_KIND_ADDED", "FILE_CHANGE_KIND_MODIFIED", "FILE_CHANGE_KIND_DELETED"];
var FILE_DIFF_FORMAT_VALUES = ["FILE_DIFF_FORMAT_UNIFIED", "FILE_DIFF_FORMAT_FULL"];
var HEALTH_STATUS_VALUES = ["HEALTH_STATUS_HEALTHY", "HEALTH_STATUS_DEGRADED", "HEALTH_STATUS_UNHEALTHY"];
var INVARIANT_ENFORCEMENT_VALUES = ["INVARIANT_ENFORCEMENT_BLOCK", "INVARIANT_ENFORCEMENT_WARN"];
var NAMESPACE_ROLE_VALUES = ["NAMESPACE_ROLE_READER", "NAMESPACE_ROLE_WRITER", "NAMESPACE_ROLE_ADMIN"];
var PLAN_ARTIFACT_KIND_VALUES = ["PLAN_ARTIFACT_KIND_FILE", "PLAN_ARTIFACT_KIND_REPORT", "PLAN_ARTIFACT_KIND_VALIDATION_RESULT", "PLAN_ARTIFACT_KIND_LOG"];
var PLAN_EVENT_TYPE_VALUES = ["plan.created", "plan.phase_changed", "plan.state_changed", "plan.decision_made", "tool.invoked", "tool.completed", "validation.completed", "plan.apply_completed", "plan.error"];
var PLAN_PHASE_VALUES = ["PLAN_PHASE_STRATEGIZE", "PLAN_PHASE_EXECUTE", "PLAN_PHASE_REVIEW", "PLAN_PHASE_APPLY"];
var PLAN_PROMPT_KIND_VALUES = ["PLAN_PROMPT_KIND_APPROVAL", "PLAN_PROMPT_KIND_TEXT", "PLAN_PROMPT_KIND_CHOICE"];
var PLAN_STATE_VALUES = ["PLAN_STATE_CREATED", "PLAN_STATE_RUNNING", "PLAN_STATE_INPUT_REQUIRED", "PLAN_STATE_COMPLETED", "PLAN_STATE_APPLIED", "PLAN_STATE_FAILED", "PLAN_STATE_CANCELLED", "PLAN_STATE_ROLLED_BACK"];
var PLAN_STEP_STATE_VALUES = ["PLAN_STEP_STATE_PENDING", "PLAN_STEP_STATE_RUNNING", "PLAN_STEP_STATE_WAITING_INPUT", "PLAN_STEP_STATE_SUCCEEDED", "PLAN_STEP_STATE_FAILED", "PLAN_STEP_STATE_SKIPPED"];
var PROJECT_FILE_CASES = ["text", "raw"];
function projectFileCase(value) {
  return oneOfCase(value, PROJECT_FILE_CASES);
}
var PROJECT_REVISION_ORIGIN_VALUES = ["PROJECT_REVISION_ORIGIN_CREATED", "PROJECT_REVISION_ORIGIN_UPDATED", "PROJECT_REVISION_ORIGIN_PLAN_APPLIED", "PROJECT_REVISION_ORIGIN_PLAN_ROLLED_BACK", "PROJECT_REVISION_ORIGIN_SYNCED"];
var PROMPT_DECISION_VALUES = ["PROMPT_DECISION_APPROVE", "PROMPT_DECISION_REJECT", "PROMPT_DECISION_ANSWER"];
var REGISTRY_KIND_VALUES = ["REGISTRY_KIND_ACTOR", "REGISTRY_KIND_TOOL", "REGISTRY_KIND_SKILL", "REGISTRY_KIND_RESOURCE", "REGISTRY_KIND_RESOURCE_TYPE", "REGISTRY_KIND_PROJECT", "REGISTRY_KIND_VALIDATION", "REGISTRY_KIND_ACTION", "REGISTRY_KIND_AUTOMATION_PROFILE", "REGISTRY_KIND_INVARIANT"];
var SYNC_DIRECTION_VALUES = ["SYNC_DIRECTION_PULL", "SYNC_DIRECTION_PUSH"];
var SYNC_OUTCOME_VALUES = ["SYNC_OUTCOME_CREATED", "SYNC_OUTCOME_UPDATED", "SYNC_OUTCOME_UNCHANGED", "SYNC_OUTCOME_CONFLICT"];
var SYNC_STATE_VALUES = ["SYNC_STATE_IN_SYNC", "SYNC_STATE_LOCAL_ONLY", "SYNC_STATE_REMOTE_ONLY", "SYNC_STATE_LOCAL_AHEAD", "SYNC_STATE_REMOTE_AHEAD", "SYNC_STATE_DIVERGED"];
var TOOL_KIND_VALUES = ["TOOL_KIND_TEMPLATE", "TOOL_KIND_WRITE_FILE", "TOOL_KIND_APPROVAL", "TOOL_KIND_RUN_VALIDATION", "TOOL_KIND_EXTERNAL"];
var VALIDATION_KIND_VALUES = ["VALIDATION_KIND_FILE_EXISTS", "VALIDATION_KIND_FILE_ABSENT", "VALIDATION_KIND_CONTENT_MATCHES", "VALIDATION_KIND_CONTENT_EXCLUDES", "VALIDATION_KIND_JSON_SCHEMA", "VALIDATION_KIND_MAX_FILE_BYTES"];
var VALIDATION_OUTCOME_VALUES = ["VALIDATION_OUTCOME_PASSED", "VALIDATION_OUTCOME_FAILED", "VALIDATION_OUTCOME_WARNED"];
var VALIDATION_SEVERITY_VALUES = ["VALIDATION_SEVERITY_ERROR", "VALIDATION_SEVERITY_WARNING"];
var SESSION_EXPORT_FORMAT_VALUES = ["urn:cleveragents:session-export"];
var DOMAIN_EVENT_TYPE_VALUES = ["plan.created", "plan.phase_changed", "plan.state_changed", "plan.decision_made", "tool.invoked", "tool.completed", "validation.completed", "plan.apply_completed", "plan.error", "session.message"];

// src/gen/contract.ts
var EXTENSION_URI = "urn:cleveragents:extensions:v1";
var EXTENSION_VERSION_HEADER = "CleverAgents-Extension-Version";
var METHOD_PREFIX = "_cleveragents/";
var NAMESPACE_FIELD = "namespace";
var DEFAULT_NAMESPACE = "default";
var ERROR_DOMAIN = "urn:cleveragents:extensions:v1";
var STDIO_BINDING_URI = "urn:cleveragents:bindings:stdio:v1";
var A2A_PROTOCOL_VERSION = "1.0";
var A2A_VERSION_HEADER = "A2A-Version";
var A2A_EXTENSIONS_HEADER = "A2A-Extensions";
var EXTENSION_VERSIONS = ["1.1", "1.2"];

// src/gen/errors.ts
var ERROR_REGISTRY = {
  /**
   * The request is not valid JSON.
   */
  ExtParseError: { code: -32700, reason: "PARSE_ERROR", domain: "urn:cleveragents:extensions:v1", message: "Invalid JSON payload", httpStatus: 400, grpcStatus: "INVALID_ARGUMENT" },
  /**
   * The JSON is not a valid JSON-RPC 2.0 request object.
   */
  ExtInvalidRequest: { code: -32600, reason: "INVALID_REQUEST", domain: "urn:cleveragents:extensions:v1", message: "Invalid request", httpStatus: 400, grpcStatus: "INVALID_ARGUMENT" },
  /**
   * The method does not exist, or was introduced in a minor version later than the one negotiated.
   */
  ExtMethodNotFound: { code: -32601, reason: "METHOD_NOT_FOUND", domain: "urn:cleveragents:extensions:v1", message: "Method not found", httpStatus: 404, grpcStatus: "UNIMPLEMENTED" },
  /**
   * The params do not match the method's params type; details may carry a BadRequest with field violations.
   */
  ExtInvalidParams: { code: -32602, reason: "INVALID_PARAMS", domain: "urn:cleveragents:extensions:v1", message: "Invalid parameters", httpStatus: 422, grpcStatus: "INVALID_ARGUMENT" },
  /**
   * The server failed while handling the request (including an unreachable sync remote).
   */
  ExtInternalError: { code: -32603, reason: "INTERNAL_ERROR", domain: "urn:cleveragents:extensions:v1", message: "Internal error", httpStatus: 500, grpcStatus: "INTERNAL" },
  /**
   * The plan, entity, namespace, prompt or remote does not exist, or lives in a namespace the caller cannot read.
   */
  ExtNotFound: { code: -32001, reason: "NOT_FOUND", domain: "urn:cleveragents:extensions:v1", message: "Not found", httpStatus: 404, grpcStatus: "NOT_FOUND" },
  /**
   * The request carries no valid credentials (server mode).
   */
  ExtAuthRequired: { code: -32002, reason: "AUTH_REQUIRED", domain: "urn:cleveragents:extensions:v1", message: "Authentication required", httpStatus: 401, grpcStatus: "UNAUTHENTICATED" },
  /**
   * The caller can read the namespace but lacks the role the method requires (WRITER for changes, ADMIN for members, sync and diagnostics).
   */
  ExtAuthForbidden: { code: -32003, reason: "AUTH_FORBIDDEN", domain: "urn:cleveragents:extensions:v1", message: "Forbidden", httpStatus: 403, grpcStatus: "PERMISSION_DENIED" },
  /**
   * The request does not fit the current state: an invalid plan transition, or an expected version or revision that is no longer current.
   */
  ExtInvalidState: { code: -32004, reason: "INVALID_STATE", domain: "urn:cleveragents:extensions:v1", message: "Invalid state", httpStatus: 409, grpcStatus: "FAILED_PRECONDITION" },
  /**
   * An entity of that kind and name already exists in the namespace.
   */
  ExtAlreadyExists: { code: -32005, reason: "ALREADY_EXISTS", domain: "urn:cleveragents:extensions:v1", message: "Already exists", httpStatus: 409, grpcStatus: "ALREADY_EXISTS" },
  /**
   * The operation would exceed the automation profile's or the context's budget; nothing was changed.
   */
  ExtBudgetExceeded: { code: -32006, reason: "BUDGET_EXCEEDED", domain: "urn:cleveragents:extensions:v1", message: "Budget exceeded", httpStatus: 429, grpcStatus: "RESOURCE_EXHAUSTED" },
  /**
   * The requested minor version of urn:cleveragents:extensions:v1 (or protocol version at stdio initialize) is not supported; supported: 1.0, 1.1.
   */
  ExtVersionMismatch: { code: -32007, reason: "VERSION_MISMATCH", domain: "urn:cleveragents:extensions:v1", message: "Version mismatch", httpStatus: 400, grpcStatus: "FAILED_PRECONDITION" },
  /**
   * The plan cannot be carried out as requested: inputs violate the action's schema, a step's tool cannot run, a correction does not apply, or a blocking invariant fails.
   */
  ExtPlanError: { code: -32008, reason: "PLAN_ERROR", domain: "urn:cleveragents:extensions:v1", message: "Plan error", httpStatus: 422, grpcStatus: "FAILED_PRECONDITION" }
};
var RpcError = class extends Error {
  code;
  reason;
  domain;
  metadata;
  details;
  httpStatus;
  constructor(wire) {
    super(wire.message);
    this.name = "RpcError";
    this.code = wire.code;
    this.reason = wire.reason;
    this.domain = wire.domain;
    this.metadata = wire.metadata ?? {};
    this.details = wire.details ?? [];
    this.httpStatus = wire.httpStatus;
  }
};
var ExtensionError = class extends RpcError {
};
var ExtParseErrorError = class extends ExtensionError {
  errorName = "ExtParseError";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtParseError;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtParseErrorError";
  }
};
var ExtInvalidRequestError = class extends ExtensionError {
  errorName = "ExtInvalidRequest";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtInvalidRequest;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtInvalidRequestError";
  }
};
var ExtMethodNotFoundError = class extends ExtensionError {
  errorName = "ExtMethodNotFound";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtMethodNotFound;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtMethodNotFoundError";
  }
};
var ExtInvalidParamsError = class extends ExtensionError {
  errorName = "ExtInvalidParams";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtInvalidParams;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtInvalidParamsError";
  }
};
var ExtInternalErrorError = class extends ExtensionError {
  errorName = "ExtInternalError";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtInternalError;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtInternalErrorError";
  }
};
var ExtNotFoundError = class extends ExtensionError {
  errorName = "ExtNotFound";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtNotFound;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtNotFoundError";
  }
};
var ExtAuthRequiredError = class extends ExtensionError {
  errorName = "ExtAuthRequired";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtAuthRequired;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtAuthRequiredError";
  }
};
var ExtAuthForbiddenError = class extends ExtensionError {
  errorName = "ExtAuthForbidden";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtAuthForbidden;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtAuthForbiddenError";
  }
};
var ExtInvalidStateError = class extends ExtensionError {
  errorName = "ExtInvalidState";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtInvalidState;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtInvalidStateError";
  }
};
var ExtAlreadyExistsError = class extends ExtensionError {
  errorName = "ExtAlreadyExists";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtAlreadyExists;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtAlreadyExistsError";
  }
};
var ExtBudgetExceededError = class extends ExtensionError {
  errorName = "ExtBudgetExceeded";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtBudgetExceeded;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtBudgetExceededError";
  }
};
var ExtVersionMismatchError = class extends ExtensionError {
  errorName = "ExtVersionMismatch";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtVersionMismatch;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtVersionMismatchError";
  }
};
var ExtPlanErrorError = class extends ExtensionError {
  errorName = "ExtPlanError";
  constructor(wire) {
    const entry = ERROR_REGISTRY.ExtPlanError;
    super({ ...wire, reason: entry.reason, domain: entry.domain });
    this.name = "ExtPlanErrorError";
  }
};
var CONSTRUCTORS = {
  ExtParseError: ExtParseErrorError,
  ExtInvalidRequest: ExtInvalidRequestError,
  ExtMethodNotFound: ExtMethodNotFoundError,
  ExtInvalidParams: ExtInvalidParamsError,
  ExtInternalError: ExtInternalErrorError,
  ExtNotFound: ExtNotFoundError,
  ExtAuthRequired: ExtAuthRequiredError,
  ExtAuthForbidden: ExtAuthForbiddenError,
  ExtInvalidState: ExtInvalidStateError,
  ExtAlreadyExists: ExtAlreadyExistsError,
  ExtBudgetExceeded: ExtBudgetExceededError,
  ExtVersionMismatch: ExtVersionMismatchError,
  ExtPlanError: ExtPlanErrorError
};
var BY_REASON = new Map(
  Object.keys(ERROR_REGISTRY).map((name) => [ERROR_REGISTRY[name].reason, name])
);
function errorFromWire(wire) {
  let name;
  if (wire.reason !== void 0) {
    name = wire.domain === ERROR_DOMAIN ? BY_REASON.get(wire.reason) : void 0;
  } else {
    name = Object.keys(ERROR_REGISTRY).find((n) => ERROR_REGISTRY[n].code === wire.code);
  }
  return name === void 0 ? new RpcError(wire) : new CONSTRUCTORS[name](wire);
}
function errorNameOfStatus(httpStatus, grpcStatus) {
  return Object.keys(ERROR_REGISTRY).find(
    (n) => ERROR_REGISTRY[n].httpStatus === httpStatus && ERROR_REGISTRY[n].grpcStatus === grpcStatus
  );
}
function isExtensionError(error, reason) {
  return error instanceof ExtensionError && error.reason === reason;
}

// src/gen/methods.ts
var EXTENSION_METHODS = {
  "_cleveragents/plan/use": { name: "_cleveragents/plan/use", clientMethod: "planUse", service: "plan", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtPlanError", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/use", body: true } },
  "_cleveragents/plan/execute": { name: "_cleveragents/plan/execute", clientMethod: "planExecute", service: "plan", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtPlanError", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/execute", body: true } },
  "_cleveragents/plan/apply": { name: "_cleveragents/plan/apply", clientMethod: "planApply", service: "plan", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtBudgetExceeded", "ExtPlanError", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/apply", body: true } },
  "_cleveragents/plan/cancel": { name: "_cleveragents/plan/cancel", clientMethod: "planCancel", service: "plan", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/cancel", body: true } },
  "_cleveragents/plan/status": { name: "_cleveragents/plan/status", clientMethod: "planStatus", service: "plan", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/status", body: true } },
  "_cleveragents/plan/tree": { name: "_cleveragents/plan/tree", clientMethod: "planTree", service: "plan", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/tree", body: true } },
  "_cleveragents/plan/explain": { name: "_cleveragents/plan/explain", clientMethod: "planExplain", service: "plan", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/explain", body: true } },
  "_cleveragents/plan/correct": { name: "_cleveragents/plan/correct", clientMethod: "planCorrect", service: "plan", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtPlanError", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/correct", body: true } },
  "_cleveragents/plan/diff": { name: "_cleveragents/plan/diff", clientMethod: "planDiff", service: "plan", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/diff", body: true } },
  "_cleveragents/plan/artifacts": { name: "_cleveragents/plan/artifacts", clientMethod: "planArtifacts", service: "plan", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/artifacts", body: true } },
  "_cleveragents/plan/prompt": { name: "_cleveragents/plan/prompt", clientMethod: "planPrompt", service: "plan", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/prompt", body: true } },
  "_cleveragents/plan/rollback": { name: "_cleveragents/plan/rollback", clientMethod: "planRollback", service: "plan", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/rollback", body: true } },
  "_cleveragents/plan/list": { name: "_cleveragents/plan/list", clientMethod: "planList", service: "plan", streaming: false, notification: false, access: "read", since: "1.1", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/plan/list", body: true } },
  "_cleveragents/registry/actors/list": { name: "_cleveragents/registry/actors/list", clientMethod: "registryActorsList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actors/list", body: true } },
  "_cleveragents/registry/actors/show": { name: "_cleveragents/registry/actors/show", clientMethod: "registryActorsShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actors/show", body: true } },
  "_cleveragents/registry/actors/add": { name: "_cleveragents/registry/actors/add", clientMethod: "registryActorsAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actors/add", body: true } },
  "_cleveragents/registry/actors/update": { name: "_cleveragents/registry/actors/update", clientMethod: "registryActorsUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actors/update", body: true } },
  "_cleveragents/registry/actors/remove": { name: "_cleveragents/registry/actors/remove", clientMethod: "registryActorsRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actors/remove", body: true } },
  "_cleveragents/registry/tools/list": { name: "_cleveragents/registry/tools/list", clientMethod: "registryToolsList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/tools/list", body: true } },
  "_cleveragents/registry/tools/show": { name: "_cleveragents/registry/tools/show", clientMethod: "registryToolsShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/tools/show", body: true } },
  "_cleveragents/registry/tools/add": { name: "_cleveragents/registry/tools/add", clientMethod: "registryToolsAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/tools/add", body: true } },
  "_cleveragents/registry/tools/update": { name: "_cleveragents/registry/tools/update", clientMethod: "registryToolsUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/tools/update", body: true } },
  "_cleveragents/registry/tools/remove": { name: "_cleveragents/registry/tools/remove", clientMethod: "registryToolsRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/tools/remove", body: true } },
  "_cleveragents/registry/skills/list": { name: "_cleveragents/registry/skills/list", clientMethod: "registrySkillsList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/skills/list", body: true } },
  "_cleveragents/registry/skills/show": { name: "_cleveragents/registry/skills/show", clientMethod: "registrySkillsShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/skills/show", body: true } },
  "_cleveragents/registry/skills/add": { name: "_cleveragents/registry/skills/add", clientMethod: "registrySkillsAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/skills/add", body: true } },
  "_cleveragents/registry/skills/update": { name: "_cleveragents/registry/skills/update", clientMethod: "registrySkillsUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/skills/update", body: true } },
  "_cleveragents/registry/skills/remove": { name: "_cleveragents/registry/skills/remove", clientMethod: "registrySkillsRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/skills/remove", body: true } },
  "_cleveragents/registry/resources/list": { name: "_cleveragents/registry/resources/list", clientMethod: "registryResourcesList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resources/list", body: true } },
  "_cleveragents/registry/resources/show": { name: "_cleveragents/registry/resources/show", clientMethod: "registryResourcesShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resources/show", body: true } },
  "_cleveragents/registry/resources/add": { name: "_cleveragents/registry/resources/add", clientMethod: "registryResourcesAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resources/add", body: true } },
  "_cleveragents/registry/resources/update": { name: "_cleveragents/registry/resources/update", clientMethod: "registryResourcesUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resources/update", body: true } },
  "_cleveragents/registry/resources/remove": { name: "_cleveragents/registry/resources/remove", clientMethod: "registryResourcesRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resources/remove", body: true } },
  "_cleveragents/registry/resource-types/list": { name: "_cleveragents/registry/resource-types/list", clientMethod: "registryResourceTypesList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resource-types/list", body: true } },
  "_cleveragents/registry/resource-types/show": { name: "_cleveragents/registry/resource-types/show", clientMethod: "registryResourceTypesShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resource-types/show", body: true } },
  "_cleveragents/registry/resource-types/add": { name: "_cleveragents/registry/resource-types/add", clientMethod: "registryResourceTypesAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resource-types/add", body: true } },
  "_cleveragents/registry/resource-types/update": { name: "_cleveragents/registry/resource-types/update", clientMethod: "registryResourceTypesUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resource-types/update", body: true } },
  "_cleveragents/registry/resource-types/remove": { name: "_cleveragents/registry/resource-types/remove", clientMethod: "registryResourceTypesRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/resource-types/remove", body: true } },
  "_cleveragents/registry/projects/list": { name: "_cleveragents/registry/projects/list", clientMethod: "registryProjectsList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/projects/list", body: true } },
  "_cleveragents/registry/projects/show": { name: "_cleveragents/registry/projects/show", clientMethod: "registryProjectsShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/projects/show", body: true } },
  "_cleveragents/registry/projects/add": { name: "_cleveragents/registry/projects/add", clientMethod: "registryProjectsAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/projects/add", body: true } },
  "_cleveragents/registry/projects/update": { name: "_cleveragents/registry/projects/update", clientMethod: "registryProjectsUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/projects/update", body: true } },
  "_cleveragents/registry/projects/remove": { name: "_cleveragents/registry/projects/remove", clientMethod: "registryProjectsRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/projects/remove", body: true } },
  "_cleveragents/registry/validations/list": { name: "_cleveragents/registry/validations/list", clientMethod: "registryValidationsList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/validations/list", body: true } },
  "_cleveragents/registry/validations/show": { name: "_cleveragents/registry/validations/show", clientMethod: "registryValidationsShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/validations/show", body: true } },
  "_cleveragents/registry/validations/add": { name: "_cleveragents/registry/validations/add", clientMethod: "registryValidationsAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/validations/add", body: true } },
  "_cleveragents/registry/validations/update": { name: "_cleveragents/registry/validations/update", clientMethod: "registryValidationsUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/validations/update", body: true } },
  "_cleveragents/registry/validations/remove": { name: "_cleveragents/registry/validations/remove", clientMethod: "registryValidationsRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/validations/remove", body: true } },
  "_cleveragents/registry/actions/list": { name: "_cleveragents/registry/actions/list", clientMethod: "registryActionsList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actions/list", body: true } },
  "_cleveragents/registry/actions/show": { name: "_cleveragents/registry/actions/show", clientMethod: "registryActionsShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actions/show", body: true } },
  "_cleveragents/registry/actions/add": { name: "_cleveragents/registry/actions/add", clientMethod: "registryActionsAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actions/add", body: true } },
  "_cleveragents/registry/actions/update": { name: "_cleveragents/registry/actions/update", clientMethod: "registryActionsUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actions/update", body: true } },
  "_cleveragents/registry/actions/remove": { name: "_cleveragents/registry/actions/remove", clientMethod: "registryActionsRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/actions/remove", body: true } },
  "_cleveragents/registry/automation-profiles/list": { name: "_cleveragents/registry/automation-profiles/list", clientMethod: "registryAutomationProfilesList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/automation-profiles/list", body: true } },
  "_cleveragents/registry/automation-profiles/show": { name: "_cleveragents/registry/automation-profiles/show", clientMethod: "registryAutomationProfilesShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/automation-profiles/show", body: true } },
  "_cleveragents/registry/automation-profiles/add": { name: "_cleveragents/registry/automation-profiles/add", clientMethod: "registryAutomationProfilesAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/automation-profiles/add", body: true } },
  "_cleveragents/registry/automation-profiles/update": { name: "_cleveragents/registry/automation-profiles/update", clientMethod: "registryAutomationProfilesUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/automation-profiles/update", body: true } },
  "_cleveragents/registry/automation-profiles/remove": { name: "_cleveragents/registry/automation-profiles/remove", clientMethod: "registryAutomationProfilesRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/automation-profiles/remove", body: true } },
  "_cleveragents/registry/invariants/list": { name: "_cleveragents/registry/invariants/list", clientMethod: "registryInvariantsList", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/invariants/list", body: true } },
  "_cleveragents/registry/invariants/show": { name: "_cleveragents/registry/invariants/show", clientMethod: "registryInvariantsShow", service: "registry", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/invariants/show", body: true } },
  "_cleveragents/registry/invariants/add": { name: "_cleveragents/registry/invariants/add", clientMethod: "registryInvariantsAdd", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtAlreadyExists", "ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/invariants/add", body: true } },
  "_cleveragents/registry/invariants/update": { name: "_cleveragents/registry/invariants/update", clientMethod: "registryInvariantsUpdate", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/invariants/update", body: true } },
  "_cleveragents/registry/invariants/remove": { name: "_cleveragents/registry/invariants/remove", clientMethod: "registryInvariantsRemove", service: "registry", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/registry/invariants/remove", body: true } },
  "_cleveragents/context/show": { name: "_cleveragents/context/show", clientMethod: "contextShow", service: "context", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/context/show", body: true } },
  "_cleveragents/context/inspect": { name: "_cleveragents/context/inspect", clientMethod: "contextInspect", service: "context", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/context/inspect", body: true } },
  "_cleveragents/context/simulate": { name: "_cleveragents/context/simulate", clientMethod: "contextSimulate", service: "context", streaming: false, notification: false, access: "read", since: "1.0", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/context/simulate", body: true } },
  "_cleveragents/context/set": { name: "_cleveragents/context/set", clientMethod: "contextSet", service: "context", streaming: false, notification: false, access: "write", since: "1.0", errors: ["ExtNotFound", "ExtInvalidState", "ExtBudgetExceeded", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/context/set", body: true } },
  "_cleveragents/sync/pull": { name: "_cleveragents/sync/pull", clientMethod: "syncPull", service: "sync", streaming: false, notification: false, access: "admin", since: "1.1", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/sync/pull", body: true } },
  "_cleveragents/sync/push": { name: "_cleveragents/sync/push", clientMethod: "syncPush", service: "sync", streaming: false, notification: false, access: "admin", since: "1.1", errors: ["ExtNotFound", "ExtInvalidState", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/sync/push", body: true } },
  "_cleveragents/sync/status": { name: "_cleveragents/sync/status", clientMethod: "syncStatus", service: "sync", streaming: false, notification: false, access: "read", since: "1.1", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/sync/status", body: true } },
  "_cleveragents/namespace/list": { name: "_cleveragents/namespace/list", clientMethod: "namespaceList", service: "namespace", streaming: false, notification: false, access: "read", since: "1.1", errors: ["ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/namespace/list", body: true } },
  "_cleveragents/namespace/show": { name: "_cleveragents/namespace/show", clientMethod: "namespaceShow", service: "namespace", streaming: false, notification: false, access: "read", since: "1.1", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/namespace/show", body: true } },
  "_cleveragents/namespace/members": { name: "_cleveragents/namespace/members", clientMethod: "namespaceMembers", service: "namespace", streaming: false, notification: false, access: "admin", since: "1.1", errors: ["ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/namespace/members", body: true } },
  "_cleveragents/health/check": { name: "_cleveragents/health/check", clientMethod: "healthCheck", service: "health", streaming: false, notification: false, access: "read", since: "1.1", errors: ["ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/health/check", body: true } },
  "_cleveragents/diagnostics/run": { name: "_cleveragents/diagnostics/run", clientMethod: "diagnosticsRun", service: "health", streaming: false, notification: false, access: "admin", since: "1.1", errors: ["ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/diagnostics/run", body: true } },
  "_cleveragents/session/create": { name: "_cleveragents/session/create", clientMethod: "sessionCreate", service: "session", streaming: false, notification: false, access: "write", since: "1.2", errors: ["ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch", "ExtInvalidParams"], http: { verb: "POST", path: "/_cleveragents/session/create", body: true } },
  "_cleveragents/session/list": { name: "_cleveragents/session/list", clientMethod: "sessionList", service: "session", streaming: false, notification: false, access: "read", since: "1.2", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch", "ExtInvalidParams"], http: { verb: "POST", path: "/_cleveragents/session/list", body: true } },
  "_cleveragents/session/show": { name: "_cleveragents/session/show", clientMethod: "sessionShow", service: "session", streaming: false, notification: false, access: "read", since: "1.2", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/session/show", body: true } },
  "_cleveragents/session/resume": { name: "_cleveragents/session/resume", clientMethod: "sessionResume", service: "session", streaming: false, notification: false, access: "read", since: "1.2", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch", "ExtInvalidParams"], http: { verb: "POST", path: "/_cleveragents/session/resume", body: true } },
  "_cleveragents/session/tell": { name: "_cleveragents/session/tell", clientMethod: "sessionTell", service: "session", streaming: false, notification: false, access: "write", since: "1.2", errors: ["ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch", "ExtInvalidParams", "ExtInvalidState", "ExtPlanError"], http: { verb: "POST", path: "/_cleveragents/session/tell", body: true } },
  "_cleveragents/session/delete": { name: "_cleveragents/session/delete", clientMethod: "sessionDelete", service: "session", streaming: false, notification: false, access: "write", since: "1.2", errors: ["ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch", "ExtInvalidState"], http: { verb: "POST", path: "/_cleveragents/session/delete", body: true } },
  "_cleveragents/session/export": { name: "_cleveragents/session/export", clientMethod: "sessionExport", service: "session", streaming: false, notification: false, access: "read", since: "1.2", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch"], http: { verb: "POST", path: "/_cleveragents/session/export", body: true } },
  "_cleveragents/session/import": { name: "_cleveragents/session/import", clientMethod: "sessionImport", service: "session", streaming: false, notification: false, access: "write", since: "1.2", errors: ["ExtNotFound", "ExtAuthRequired", "ExtAuthForbidden", "ExtVersionMismatch", "ExtAlreadyExists", "ExtInvalidParams"], http: { verb: "POST", path: "/_cleveragents/session/import", body: true } },
  "_cleveragents/events/subscribe": { name: "_cleveragents/events/subscribe", clientMethod: "eventsSubscribe", service: "events", streaming: true, notification: false, access: "read", since: "1.2", errors: ["ExtNotFound", "ExtAuthRequired", "ExtVersionMismatch", "ExtInvalidParams"], http: { verb: "POST", path: "/_cleveragents/events/subscribe", body: true } }
};
var BINDING_METHODS = {
  initialize: { name: "initialize", clientMethod: "initialize", service: "stdio", streaming: false, notification: false, access: void 0, since: "1.0", errors: ["ExtVersionMismatch", "ExtInvalidState"], http: void 0 },
  streamEvent: { name: "stream/event", clientMethod: "streamEvent", service: "stdio", streaming: false, notification: true, access: void 0, since: "1.0", errors: [], http: void 0 },
  streamCancel: { name: "stream/cancel", clientMethod: "streamCancel", service: "stdio", streaming: false, notification: false, access: void 0, since: "1.0", errors: [], http: void 0 },
  streamResume: { name: "stream/resume", clientMethod: "streamResume", service: "stdio", streaming: true, notification: false, access: void 0, since: "1.0", errors: ["ExtInvalidParams"], http: void 0 }
};

// src/gen/client.ts
var ExtensionClient = class {
  constructor(transport) {
    this.transport = transport;
  }
  /** Calls unary method `method` by its wire name. */
  call(method, params, options) {
    return this.transport.call(method, params, options);
  }
  /** Calls streaming method `method` by its wire name: its events, each with its resume position. */
  stream(method, params, options) {
    return this.transport.stream(method, params, options);
  }
  /** Closes the transport (ends a stdio agent). */
  close() {
    return this.transport.close();
  }
  /**
   * Instantiates an action from the registry on a project. The new plan is CREATED in phase STRATEGIZE at revision 1, based on the project's current revision. ExtNotFound when the action, project or automation profile does not exist; ExtPlanError when the inputs do not satisfy the action's inputSchema or the action refers to tools that do not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/use">} ExtNotFound, ExtPlanError, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  planUse(params, options) {
    return this.call("_cleveragents/plan/use", params, options);
  }
  /**
   * Starts executing a CREATED plan as an A2A task and returns at once (not streaming): the plan, now RUNNING in phase EXECUTE, and the task's id. Follow the task with SubscribeToTask: state changes arrive as TaskStatusUpdateEvents, outputs as TaskArtifactUpdateEvents, an approval step puts the task in input-required, and each event's metadata carries a PlanDomainEvent under the extension URI. ExtInvalidState unless the plan is CREATED; ExtPlanError when a step's tool cannot be run (missing or EXTERNAL).
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/execute">} ExtNotFound, ExtInvalidState, ExtPlanError, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  planExecute(params, options) {
    return this.call("_cleveragents/plan/execute", params, options);
  }
  /**
   * Writes a COMPLETED plan's FILE artifacts into its project as one new project revision and moves the plan to APPLIED (phase APPLY). Before writing, the plan's usage is checked against the automation profile's budget (ExtBudgetExceeded) and the namespace's invariants are validated on the resulting tree (a failed BLOCK invariant is ExtPlanError); in both cases nothing is written and the plan stays COMPLETED. ExtInvalidState unless the plan is COMPLETED, or when expectedProjectRevision no longer matches the project.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/apply">} ExtNotFound, ExtInvalidState, ExtBudgetExceeded, ExtPlanError, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  planApply(params, options) {
    return this.call("_cleveragents/plan/apply", params, options);
  }
  /**
   * Cancels a plan that is CREATED, RUNNING, INPUT_REQUIRED, COMPLETED or FAILED; a running A2A task of the plan is cancelled too. The plan keeps its phase. ExtInvalidState for APPLIED, CANCELLED and ROLLED_BACK plans.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/cancel">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  planCancel(params, options) {
    return this.call("_cleveragents/plan/cancel", params, options);
  }
  /**
   * Returns the plan with its steps' progress, the prompt it waits on (when INPUT_REQUIRED), its revisions, and its budget usage.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/status">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  planStatus(params, options) {
    return this.call("_cleveragents/plan/status", params, options);
  }
  /**
   * Returns the decision tree of a plan revision.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/tree">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  planTree(params, options) {
    return this.call("_cleveragents/plan/tree", params, options);
  }
  /**
   * Explains a plan revision, or one node of its decision tree. ExtNotFound when the plan, revision or node does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/explain">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  planExplain(params, options) {
    return this.call("_cleveragents/plan/explain", params, options);
  }
  /**
   * Records a correction and creates the next plan revision: the plan returns to CREATED in phase STRATEGIZE (from CREATED, COMPLETED or FAILED) and must be executed again. ExtInvalidState in any other state or when expectedRevision is not the current revision; ExtPlanError when the correction cannot be applied (unknown nodeId, inputs violating the action's inputSchema).
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/correct">} ExtNotFound, ExtInvalidState, ExtPlanError, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  planCorrect(params, options) {
    return this.call("_cleveragents/plan/correct", params, options);
  }
  /**
   * Shows what plan/apply would change in the project: the plan's FILE artifacts against the project's current revision. Available once the plan has artifacts (RUNNING or later); ExtInvalidState for a plan that has produced none (CREATED).
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/diff">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtVersionMismatch
   */
  planDiff(params, options) {
    return this.call("_cleveragents/plan/diff", params, options);
  }
  /**
   * Lists the artifacts a plan revision produced (the same A2A artifacts its task streamed).
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/artifacts">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  planArtifacts(params, options) {
    return this.call("_cleveragents/plan/artifacts", params, options);
  }
  /**
   * Answers the prompt an INPUT_REQUIRED plan waits on (equivalently, a client may reply to the input-required A2A task). APPROVE and ANSWER resume the plan (RUNNING); REJECT fails the step and the plan (FAILED). ExtInvalidState when the plan is not INPUT_REQUIRED or the prompt was already answered; ExtNotFound when the prompt does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/prompt">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  planPrompt(params, options) {
    return this.call("_cleveragents/plan/prompt", params, options);
  }
  /**
   * Undoes an APPLIED plan: appends a project revision whose tree equals the revision before the apply, and moves the plan to ROLLED_BACK. ExtInvalidState unless the plan is APPLIED and its apply revision is still the project's current revision.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/plan/rollback">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  planRollback(params, options) {
    return this.call("_cleveragents/plan/rollback", params, options);
  }
  /**
   * Lists plans, newest first, filtered by project, action and state.
   *
   * @since extension version 1.1
   * @throws {MethodError<"_cleveragents/plan/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  planList(params = {}, options) {
    return this.call("_cleveragents/plan/list", params, options);
  }
  /**
   * Lists the actors of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actors/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryActorsList(params = {}, options) {
    return this.call("_cleveragents/registry/actors/list", params, options);
  }
  /**
   * Returns one Actor by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actors/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryActorsShow(params, options) {
    return this.call("_cleveragents/registry/actors/show", params, options);
  }
  /**
   * Creates a Actor at version 1. ExtAlreadyExists when the name is taken in the namespace.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actors/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryActorsAdd(params, options) {
    return this.call("_cleveragents/registry/actors/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a Actor and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actors/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryActorsUpdate(params, options) {
    return this.call("_cleveragents/registry/actors/update", params, options);
  }
  /**
   * Removes a Actor. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actors/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryActorsRemove(params, options) {
    return this.call("_cleveragents/registry/actors/remove", params, options);
  }
  /**
   * Lists the tools of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/tools/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryToolsList(params = {}, options) {
    return this.call("_cleveragents/registry/tools/list", params, options);
  }
  /**
   * Returns one Tool by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/tools/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryToolsShow(params, options) {
    return this.call("_cleveragents/registry/tools/show", params, options);
  }
  /**
   * Creates a Tool at version 1. ExtAlreadyExists when the name is taken in the namespace.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/tools/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryToolsAdd(params, options) {
    return this.call("_cleveragents/registry/tools/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a Tool and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version. Built-in tools cannot be updated or removed (ExtInvalidState).
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/tools/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryToolsUpdate(params, options) {
    return this.call("_cleveragents/registry/tools/update", params, options);
  }
  /**
   * Removes a Tool. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version. Built-in tools cannot be updated or removed (ExtInvalidState).
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/tools/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryToolsRemove(params, options) {
    return this.call("_cleveragents/registry/tools/remove", params, options);
  }
  /**
   * Lists the skills of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/skills/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registrySkillsList(params = {}, options) {
    return this.call("_cleveragents/registry/skills/list", params, options);
  }
  /**
   * Returns one Skill by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/skills/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registrySkillsShow(params, options) {
    return this.call("_cleveragents/registry/skills/show", params, options);
  }
  /**
   * Creates a Skill at version 1. ExtAlreadyExists when the name is taken in the namespace.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/skills/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registrySkillsAdd(params, options) {
    return this.call("_cleveragents/registry/skills/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a Skill and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/skills/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registrySkillsUpdate(params, options) {
    return this.call("_cleveragents/registry/skills/update", params, options);
  }
  /**
   * Removes a Skill. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/skills/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registrySkillsRemove(params, options) {
    return this.call("_cleveragents/registry/skills/remove", params, options);
  }
  /**
   * Lists the resources of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resources/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryResourcesList(params = {}, options) {
    return this.call("_cleveragents/registry/resources/list", params, options);
  }
  /**
   * Returns one Resource by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resources/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryResourcesShow(params, options) {
    return this.call("_cleveragents/registry/resources/show", params, options);
  }
  /**
   * Creates a Resource at version 1. ExtAlreadyExists when the name is taken in the namespace.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resources/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryResourcesAdd(params, options) {
    return this.call("_cleveragents/registry/resources/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a Resource and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resources/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryResourcesUpdate(params, options) {
    return this.call("_cleveragents/registry/resources/update", params, options);
  }
  /**
   * Removes a Resource. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resources/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryResourcesRemove(params, options) {
    return this.call("_cleveragents/registry/resources/remove", params, options);
  }
  /**
   * Lists the resource types of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resource-types/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryResourceTypesList(params = {}, options) {
    return this.call("_cleveragents/registry/resource-types/list", params, options);
  }
  /**
   * Returns one ResourceType by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resource-types/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryResourceTypesShow(params, options) {
    return this.call("_cleveragents/registry/resource-types/show", params, options);
  }
  /**
   * Creates a ResourceType at version 1. ExtAlreadyExists when the name is taken in the namespace.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resource-types/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryResourceTypesAdd(params, options) {
    return this.call("_cleveragents/registry/resource-types/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a ResourceType and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resource-types/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryResourceTypesUpdate(params, options) {
    return this.call("_cleveragents/registry/resource-types/update", params, options);
  }
  /**
   * Removes a ResourceType. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/resource-types/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryResourceTypesRemove(params, options) {
    return this.call("_cleveragents/registry/resource-types/remove", params, options);
  }
  /**
   * Lists the projects of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/projects/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryProjectsList(params = {}, options) {
    return this.call("_cleveragents/registry/projects/list", params, options);
  }
  /**
   * Returns one Project by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/projects/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryProjectsShow(params, options) {
    return this.call("_cleveragents/registry/projects/show", params, options);
  }
  /**
   * Creates a Project at version 1. ExtAlreadyExists when the name is taken in the namespace. The given files become revision 1 of the project's tree.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/projects/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryProjectsAdd(params, options) {
    return this.call("_cleveragents/registry/projects/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a Project and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version. Passing `files` replaces the tree as a new project revision.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/projects/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryProjectsUpdate(params, options) {
    return this.call("_cleveragents/registry/projects/update", params, options);
  }
  /**
   * Removes a Project. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version. A project with plans that are RUNNING or INPUT_REQUIRED cannot be removed (ExtInvalidState).
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/projects/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryProjectsRemove(params, options) {
    return this.call("_cleveragents/registry/projects/remove", params, options);
  }
  /**
   * Lists the validations of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/validations/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryValidationsList(params = {}, options) {
    return this.call("_cleveragents/registry/validations/list", params, options);
  }
  /**
   * Returns one Validation by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/validations/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryValidationsShow(params, options) {
    return this.call("_cleveragents/registry/validations/show", params, options);
  }
  /**
   * Creates a Validation at version 1. ExtAlreadyExists when the name is taken in the namespace.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/validations/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryValidationsAdd(params, options) {
    return this.call("_cleveragents/registry/validations/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a Validation and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/validations/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryValidationsUpdate(params, options) {
    return this.call("_cleveragents/registry/validations/update", params, options);
  }
  /**
   * Removes a Validation. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/validations/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryValidationsRemove(params, options) {
    return this.call("_cleveragents/registry/validations/remove", params, options);
  }
  /**
   * Lists the actions of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actions/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryActionsList(params = {}, options) {
    return this.call("_cleveragents/registry/actions/list", params, options);
  }
  /**
   * Returns one Action by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actions/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryActionsShow(params, options) {
    return this.call("_cleveragents/registry/actions/show", params, options);
  }
  /**
   * Creates a Action at version 1. ExtAlreadyExists when the name is taken in the namespace.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actions/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryActionsAdd(params, options) {
    return this.call("_cleveragents/registry/actions/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a Action and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actions/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryActionsUpdate(params, options) {
    return this.call("_cleveragents/registry/actions/update", params, options);
  }
  /**
   * Removes a Action. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/actions/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryActionsRemove(params, options) {
    return this.call("_cleveragents/registry/actions/remove", params, options);
  }
  /**
   * Lists the automation profiles of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/automation-profiles/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryAutomationProfilesList(params = {}, options) {
    return this.call("_cleveragents/registry/automation-profiles/list", params, options);
  }
  /**
   * Returns one AutomationProfile by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/automation-profiles/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryAutomationProfilesShow(params, options) {
    return this.call("_cleveragents/registry/automation-profiles/show", params, options);
  }
  /**
   * Creates a AutomationProfile at version 1. ExtAlreadyExists when the name is taken in the namespace.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/automation-profiles/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryAutomationProfilesAdd(params, options) {
    return this.call("_cleveragents/registry/automation-profiles/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a AutomationProfile and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/automation-profiles/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryAutomationProfilesUpdate(params, options) {
    return this.call("_cleveragents/registry/automation-profiles/update", params, options);
  }
  /**
   * Removes a AutomationProfile. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/automation-profiles/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryAutomationProfilesRemove(params, options) {
    return this.call("_cleveragents/registry/automation-profiles/remove", params, options);
  }
  /**
   * Lists the invariants of a namespace, ordered by name.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/invariants/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryInvariantsList(params = {}, options) {
    return this.call("_cleveragents/registry/invariants/list", params, options);
  }
  /**
   * Returns one Invariant by name. ExtNotFound when it does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/invariants/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  registryInvariantsShow(params, options) {
    return this.call("_cleveragents/registry/invariants/show", params, options);
  }
  /**
   * Creates a Invariant at version 1. ExtAlreadyExists when the name is taken in the namespace.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/invariants/add">} ExtAlreadyExists, ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryInvariantsAdd(params, options) {
    return this.call("_cleveragents/registry/invariants/add", params, options);
  }
  /**
   * Replaces the client-writable fields of a Invariant and increments its version. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/invariants/update">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryInvariantsUpdate(params, options) {
    return this.call("_cleveragents/registry/invariants/update", params, options);
  }
  /**
   * Removes a Invariant. ExtNotFound when it does not exist; ExtInvalidState when expectedVersion is not the stored version.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/registry/invariants/remove">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  registryInvariantsRemove(params, options) {
    return this.call("_cleveragents/registry/invariants/remove", params, options);
  }
  /**
   * Shows which project files and resources plans on a project see (or one plan sees), with token estimates and the budget.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/context/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  contextShow(params, options) {
    return this.call("_cleveragents/context/show", params, options);
  }
  /**
   * Shows one context item in detail, with the content as the plan sees it. ExtNotFound when the project, plan, file or resource does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/context/inspect">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  contextInspect(params, options) {
    return this.call("_cleveragents/context/inspect", params, options);
  }
  /**
   * Evaluates proposed context settings without saving them: the context as it is and as it would be. An over-budget proposal is reported (withinBudget false), not refused.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/context/simulate">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  contextSimulate(params, options) {
    return this.call("_cleveragents/context/simulate", params, options);
  }
  /**
   * Saves a project's context settings (incrementing the project's version) and returns the resulting context. ExtBudgetExceeded (nothing saved) when the resulting context exceeds maxTokens; ExtInvalidState when expectedVersion is not the project's version; ExtNotFound when the project or a listed resource does not exist.
   *
   * @since extension version 1.0
   * @throws {MethodError<"_cleveragents/context/set">} ExtNotFound, ExtInvalidState, ExtBudgetExceeded, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  contextSet(params, options) {
    return this.call("_cleveragents/context/set", params, options);
  }
  /**
   * Copies registry entities of the namespace from a configured remote CleverAgents server into this instance (projects with their current tree), using the project's own client. Entities changed on both sides are reported as CONFLICT unless `force`. ExtNotFound when the remote is not configured; ExtInvalidState when another sync of the namespace is running. An unreachable remote is ExtInternalError.
   *
   * @since extension version 1.1
   * @throws {MethodError<"_cleveragents/sync/pull">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  syncPull(params = {}, options) {
    return this.call("_cleveragents/sync/pull", params, options);
  }
  /**
   * Copies registry entities of the namespace from this instance to a configured remote. Same rules as sync/pull in the other direction.
   *
   * @since extension version 1.1
   * @throws {MethodError<"_cleveragents/sync/push">} ExtNotFound, ExtInvalidState, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  syncPush(params = {}, options) {
    return this.call("_cleveragents/sync/push", params, options);
  }
  /**
   * Compares the namespace's registry with a configured remote without changing either side. An unreachable remote is reported (reachable false), not an error.
   *
   * @since extension version 1.1
   * @throws {MethodError<"_cleveragents/sync/status">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  syncStatus(params = {}, options) {
    return this.call("_cleveragents/sync/status", params, options);
  }
  /**
   * Lists the namespaces the caller can read, ordered by name.
   *
   * @since extension version 1.1
   * @throws {MethodError<"_cleveragents/namespace/list">} ExtAuthRequired, ExtVersionMismatch
   */
  namespaceList(params = {}, options) {
    return this.call("_cleveragents/namespace/list", params, options);
  }
  /**
   * Returns a namespace with its plan and entity counts.
   *
   * @since extension version 1.1
   * @throws {MethodError<"_cleveragents/namespace/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  namespaceShow(params = {}, options) {
    return this.call("_cleveragents/namespace/show", params, options);
  }
  /**
   * Lists the members of a namespace and their roles, ordered by principal. Requires the ADMIN role (ExtAuthForbidden otherwise).
   *
   * @since extension version 1.1
   * @throws {MethodError<"_cleveragents/namespace/members">} ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  namespaceMembers(params = {}, options) {
    return this.call("_cleveragents/namespace/members", params, options);
  }
  /**
   * Reports the health of the server and its components. An unhealthy component is reported in the result, not as an error.
   *
   * @since extension version 1.1
   * @throws {MethodError<"_cleveragents/health/check">} ExtAuthRequired, ExtVersionMismatch
   */
  healthCheck(params = {}, options) {
    return this.call("_cleveragents/health/check", params, options);
  }
  /**
   * Runs diagnostics: store integrity, the schema and contract versions in use, and the effective configuration (secrets redacted). Requires the ADMIN role of the namespace (ExtAuthForbidden otherwise). Problems are reported in the result, not as errors.
   *
   * @since extension version 1.1
   * @throws {MethodError<"_cleveragents/diagnostics/run">} ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch
   */
  diagnosticsRun(params = {}, options) {
    return this.call("_cleveragents/diagnostics/run", params, options);
  }
  /**
   * Creates a session: a new A2A context with a title and client metadata. Its id is usable as `contextId` in SendMessage and as `sessionId` of the other session methods.
   *
   * @since extension version 1.2
   * @throws {MethodError<"_cleveragents/session/create">} ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch, ExtInvalidParams
   */
  sessionCreate(params = {}, options) {
    return this.call("_cleveragents/session/create", params, options);
  }
  /**
   * Lists sessions, newest first (by creation time), filtered by title and by whether they wait for input.
   *
   * @since extension version 1.2
   * @throws {MethodError<"_cleveragents/session/list">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch, ExtInvalidParams
   */
  sessionList(params = {}, options) {
    return this.call("_cleveragents/session/list", params, options);
  }
  /**
   * Returns a session with its tasks (newest first), the plans run in it, its last activity and whether a task waits for input.
   *
   * @since extension version 1.2
   * @throws {MethodError<"_cleveragents/session/show">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  sessionShow(params, options) {
    return this.call("_cleveragents/session/show", params, options);
  }
  /**
   * Returns what a client needs to continue a session: the newest task waiting for input, if any, and the latest messages.
   *
   * @since extension version 1.2
   * @throws {MethodError<"_cleveragents/session/resume">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch, ExtInvalidParams
   */
  sessionResume(params, options) {
    return this.call("_cleveragents/session/resume", params, options);
  }
  /**
   * Sends a message into a session: exactly SendMessage with the session as contextId (a taskId in the message continues that task). ExtInvalidParams when the message names another contextId; ExtInvalidState when it continues a terminal task; ExtNotFound for an unknown session or task.
   *
   * @since extension version 1.2
   * @throws {MethodError<"_cleveragents/session/tell">} ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch, ExtInvalidParams, ExtInvalidState, ExtPlanError
   */
  sessionTell(params, options) {
    return this.call("_cleveragents/session/tell", params, options);
  }
  /**
   * Deletes a session and its tasks (with their events). ExtInvalidState while one of its tasks is not in a terminal state, unless `force`.
   *
   * @since extension version 1.2
   * @throws {MethodError<"_cleveragents/session/delete">} ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch, ExtInvalidState
   */
  sessionDelete(params, options) {
    return this.call("_cleveragents/session/delete", params, options);
  }
  /**
   * Writes a session as one self-contained, versioned JSON document (format version 2): the session, its tasks with history, artifacts and event logs, its plan links, and a SHA-256 checksum of the session, of each task and of each task's events.
   *
   * @since extension version 1.2
   * @throws {MethodError<"_cleveragents/session/export">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch
   */
  sessionExport(params, options) {
    return this.call("_cleveragents/session/export", params, options);
  }
  /**
   * Recreates an exported session, with the same ids, in the namespace of the call (here or on another instance), each task with its event log (a version 1 document has none), so the imported tasks appear in the namespace event stream and resume by sequence number as they did. Nothing is created when a check fails: ExtAlreadyExists when the session or one of its tasks exists; ExtInvalidParams when a checksum does not match its content, a task or event is of another context or task, the events are not numbered 1 to n, or the format or its version is unknown.
   *
   * @since extension version 1.2
   * @throws {MethodError<"_cleveragents/session/import">} ExtNotFound, ExtAuthRequired, ExtAuthForbidden, ExtVersionMismatch, ExtAlreadyExists, ExtInvalidParams
   */
  sessionImport(params, options) {
    return this.call("_cleveragents/session/import", params, options);
  }
  /**
   * Streams the domain events of a namespace, filtered by plan, session and event types, in the order of their cursors (causal order within a task and so within a plan). Each event carries its namespace-wide cursor; a subscription resumed after a cursor (`after`, SSE Last-Event-ID, stdio `stream/resume`) gets every later matching event exactly once. Without `follow` the stream ends after the events stored now.
   *
   * @since extension version 1.2
   * @throws {MethodError<"_cleveragents/events/subscribe">} ExtNotFound, ExtAuthRequired, ExtVersionMismatch, ExtInvalidParams
   */
  eventsSubscribe(params = {}, options) {
    return this.stream("_cleveragents/events/subscribe", params, options);
  }
};

// src/transport.ts
var TransportError = class extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = "TransportError";
  }
};

// src/wire.ts
var ERROR_INFO_TYPE = "google.rpc.ErrorInfo";
function request(id, method, params) {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function detailsOf(value) {
  return Array.isArray(value) ? value : [];
}
function withErrorInfo(base, details) {
  const info = details.find(
    (d) => isObject(d) && typeof d["@type"] === "string" && d["@type"].endsWith(ERROR_INFO_TYPE)
  );
  if (info === void 0) return { ...base, details };
  const metadata = {};
  if (isObject(info["metadata"])) {
    for (const [k, v] of Object.entries(info["metadata"])) {
      if (typeof v === "string") metadata[k] = v;
    }
  }
  return {
    ...base,
    details,
    reason: typeof info["reason"] === "string" ? info["reason"] : void 0,
    domain: typeof info["domain"] === "string" ? info["domain"] : void 0,
    metadata
  };
}
function errorOfJsonRpc(error, httpStatus) {
  if (!isObject(error) || typeof error["code"] !== "number") {
    throw new TransportError(`malformed JSON-RPC error: ${JSON.stringify(error)}`);
  }
  const message = typeof error["message"] === "string" ? error["message"] : "";
  return errorFromWire(withErrorInfo({ code: error["code"], message, httpStatus }, detailsOf(error["data"])));
}
function resultOf(response) {
  if (!isObject(response) || response["jsonrpc"] !== "2.0") {
    throw new TransportError(`not a JSON-RPC response: ${JSON.stringify(response)}`);
  }
  if ("error" in response) throw errorOfJsonRpc(response["error"]);
  if (!("result" in response)) throw new TransportError("a JSON-RPC response without result or error");
  return response["result"];
}
function isStatusBody(value) {
  return isObject(value) && isObject(value["error"]) && "code" in value["error"];
}
function errorOfStatusBody(body, httpStatus) {
  const error = body.error;
  const message = typeof error["message"] === "string" ? error["message"] : `HTTP ${httpStatus}`;
  const status = typeof error["status"] === "string" ? error["status"] : "";
  const wire = withErrorInfo({ code: 0, message, httpStatus }, detailsOf(error["details"]));
  const names = Object.keys(ERROR_REGISTRY);
  const byReason = names.find((n) => ERROR_REGISTRY[n].reason === wire.reason && ERROR_REGISTRY[n].domain === wire.domain);
  const name = byReason ?? errorNameOfStatus(httpStatus, status);
  const code = name === void 0 ? typeof error["code"] === "number" ? error["code"] : httpStatus : ERROR_REGISTRY[name].code;
  return errorFromWire({ ...wire, code });
}
function errorOfBareStatus(httpStatus, body) {
  const names = Object.keys(ERROR_REGISTRY).filter((n) => ERROR_REGISTRY[n].httpStatus === httpStatus);
  const [only] = names;
  if (names.length !== 1 || only === void 0) return void 0;
  const entry = ERROR_REGISTRY[only];
  const message = body.trim() === "" ? entry.message : body.trim().slice(0, 200);
  return errorFromWire({ code: entry.code, message, httpStatus, reason: entry.reason, domain: entry.domain });
}
async function* chunksOf(body) {
  if (!("getReader" in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  let finished = false;
  try {
    for (; ; ) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => void 0);
    reader.releaseLock();
  }
}
async function* sseEvents(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  let id;
  let event;
  let data = [];
  const dispatch = () => {
    const out = data.length > 0 ? { id, event, data: data.join("\n") } : void 0;
    event = void 0;
    data = [];
    return out;
  };
  for await (const chunk of chunksOf(body)) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        const ready = dispatch();
        if (ready !== void 0) yield ready;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "id") id = value;
      else if (field === "event") event = value;
    }
  }
  const last = dispatch();
  if (last !== void 0) yield last;
}
function bounded(signal, timeoutMs) {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal === void 0 ? timeout : AbortSignal.any([signal, timeout]);
}
function position(value) {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && /^\d+$/.test(value.trim())) return Number(value.trim());
  return void 0;
}

// src/http.ts
var JSON_TYPE = "application/json";
var SSE_TYPE = "text/event-stream";
function repeatable(info) {
  return info?.access === "read";
}
function methodInfo(method) {
  return Object.prototype.hasOwnProperty.call(EXTENSION_METHODS, method) ? EXTENSION_METHODS[method] : void 0;
}
var HttpTransport = class _HttpTransport {
  binding;
  options;
  fetch;
  nextId = 1;
  closed = false;
  constructor(options) {
    this.options = options;
    this.binding = options.binding ?? "JSONRPC";
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }
  /**
   * A transport of `binding` to the agent at `baseUrl`: at the URL its
   * public Agent Card declares for the binding.
   */
  static async fromAgentCard(baseUrl, binding, options = {}) {
    const fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const cardUrl = new URL("/.well-known/agent-card.json", baseUrl);
    let response;
    try {
      response = await fetcher(cardUrl, {
        headers: { [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION, accept: JSON_TYPE },
        signal: AbortSignal.timeout(options.timeoutMs ?? 3e4)
      });
    } catch (cause) {
      throw new TransportError(`agent card: GET ${cardUrl.href}: ${describe(cause)}`, { cause });
    }
    if (!response.ok) throw new TransportError(`agent card: HTTP ${response.status}`);
    const card = await response.json();
    const declared = card.supportedInterfaces.find(
      (i) => i.protocolBinding === binding && i.protocolVersion === A2A_PROTOCOL_VERSION
    );
    if (declared === void 0) throw new TransportError(`the agent card declares no ${binding} interface`);
    return { transport: new _HttpTransport({ ...options, url: declared.url, binding }), card };
  }
  headers(accept, lastEventId) {
    const headers = new Headers(this.options.headers);
    headers.set(A2A_VERSION_HEADER, A2A_PROTOCOL_VERSION);
    headers.set(A2A_EXTENSIONS_HEADER, EXTENSION_URI);
    if (this.options.extensionVersion !== void 0) {
      headers.set(EXTENSION_VERSION_HEADER, this.options.extensionVersion);
    }
    headers.set("content-type", JSON_TYPE);
    headers.set("accept", accept);
    if (lastEventId !== void 0) headers.set("last-event-id", String(lastEventId));
    return headers;
  }
  /** The URL, verb and body of a call in the transport's binding. */
  target(method, params) {
    if (this.binding === "JSONRPC") {
      return { url: this.options.url, verb: "POST", body: request(this.nextId++, method, params) };
    }
    const route = methodInfo(method)?.http;
    if (route === void 0) throw new TransportError(`\`${method}\` has no HTTP+JSON route`);
    const rest = { ...params };
    const path = route.path.replace(/\{([^}]+)\}/g, (_, field) => {
      const value = rest[field];
      delete rest[field];
      if (value === void 0) throw new TransportError(`\`${method}\`: the params lack \`${field}\` of its route`);
      return encodeURIComponent(String(value));
    });
    let url = this.options.url.replace(/\/+$/, "") + path;
    if (route.body) return { url, verb: route.verb, body: JSON.stringify(rest) };
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) if (v !== void 0) query.set(k, String(v));
    if ([...query].length > 0) url += `?${query.toString()}`;
    return { url, verb: route.verb, body: void 0 };
  }
  async send(method, params, accept, signal, lastEventId) {
    if (this.closed) throw new TransportError("the transport is closed");
    const { url, verb, body } = this.target(method, params);
    try {
      const init = { method: verb, headers: this.headers(accept, lastEventId), signal };
      if (body !== void 0) init.body = body;
      return await this.fetch(url, init);
    } catch (cause) {
      throw new TransportError(`${verb} ${url}: ${describe(cause)}`, { cause });
    }
  }
  /**
   * The error an answer that is not a success carries: the error of its
   * body, else the registry's one error of that HTTP status (a proxy's or an
   * authentication layer's bare 401), else a TransportError.
   */
  async failure(response) {
    const text = await response.text();
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      value = void 0;
    }
    if (isStatusBody(value)) return errorOfStatusBody(value, response.status);
    if (typeof value === "object" && value !== null && "error" in value) {
      return errorOfJsonRpc(value.error, response.status);
    }
    return errorOfBareStatus(response.status, text) ?? new TransportError(`HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
  /** The result of a successful answer's JSON in the transport's binding. */
  outcome(value) {
    if (this.binding === "JSONRPC") return resultOf(value);
    if (isStatusBody(value)) throw errorOfStatusBody(value, 200);
    return value;
  }
  async call(method, params, options = {}) {
    const signal = bounded(options.signal, options.timeoutMs ?? this.options.timeoutMs ?? 3e4);
    const response = await this.send(method, params, JSON_TYPE, signal);
    if (!response.ok) throw await this.failure(response);
    let value;
    try {
      value = await response.json();
    } catch (cause) {
      throw new TransportError(`the answer to ${method} is not JSON: ${describe(cause)}`, { cause });
    }
    return this.outcome(value);
  }
  async *stream(method, params, options = {}) {
    const info = methodInfo(method);
    let lastId = options.lastEventId;
    let resumesLeft = this.options.maxResumes ?? 3;
    const abort = new AbortController();
    const onAbort = () => abort.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      let resuming = false;
      for (; ; ) {
        const attempt = new AbortController();
        const follow = () => attempt.abort(abort.signal.reason);
        abort.signal.addEventListener("abort", follow, { once: true });
        const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 3e4;
        const timer = setTimeout(() => attempt.abort(new TransportError(`${method}: no answer within ${timeoutMs} ms`)), timeoutMs);
        let response;
        try {
          response = await this.send(method, params, SSE_TYPE, attempt.signal, lastId);
        } catch (error) {
          abort.signal.removeEventListener("abort", follow);
          if (!resuming || !(error instanceof TransportError) || abort.signal.aborted || resumesLeft <= 0) throw error;
          resumesLeft -= 1;
          await pause(RESUME_PAUSE_MS, abort.signal);
          continue;
        } finally {
          clearTimeout(timer);
        }
        if (!response.ok) throw await this.failure(response);
        const type = response.headers.get("content-type") ?? "";
        if (!type.startsWith(SSE_TYPE) || response.body === null) {
          yield { data: this.outcome(await response.json()), id: void 0 };
          return;
        }
        const body = response.body;
        const cancel = () => void body.cancel().catch(() => void 0);
        abort.signal.addEventListener("abort", cancel, { once: true });
        try {
          for await (const event of sseEvents(body)) {
            if (event.data.trim() === "") continue;
            const id = position(event.id);
            if (id !== void 0 && lastId !== void 0 && id <= lastId) continue;
            const data = this.outcome(JSON.parse(event.data));
            if (id !== void 0) lastId = id;
            resumesLeft = this.options.maxResumes ?? 3;
            yield { data, id };
          }
          return;
        } catch (error) {
          if (abort.signal.aborted) throw new TransportError(`${method} aborted`, { cause: error });
          if (!(error instanceof TypeError || error instanceof TransportError)) throw error;
          if (!repeatable(info) || resumesLeft <= 0) {
            throw new TransportError(`${method}: stream broken: ${describe(error)}`, { cause: error });
          }
          resumesLeft -= 1;
          resuming = true;
        } finally {
          abort.signal.removeEventListener("abort", cancel);
          abort.signal.removeEventListener("abort", follow);
        }
      }
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      abort.abort();
    }
  }
  async close() {
    this.closed = true;
  }
};
var RESUME_PAUSE_MS = 200;
function pause(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
function describe(error) {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}
export {
  A2A_EXTENSIONS_HEADER,
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  ACTOR_KIND_VALUES,
  APPROVAL_MODE_VALUES,
  BINDING_METHODS,
  CONFIGURATION_SOURCE_VALUES,
  CONTEXT_EXCLUSION_REASON_VALUES,
  CONTEXT_ITEM_KIND_VALUES,
  DECISION_NODE_KIND_VALUES,
  DEFAULT_NAMESPACE,
  DIAGNOSTIC_CHECK_KIND_VALUES,
  DIAGNOSTIC_OUTCOME_VALUES,
  DOMAIN_EVENT_TYPE_VALUES,
  ERROR_DOMAIN,
  ERROR_REGISTRY,
  EXTENSION_METHODS,
  EXTENSION_URI,
  EXTENSION_VERSIONS,
  EXTENSION_VERSION_HEADER,
  ExtAlreadyExistsError,
  ExtAuthForbiddenError,
  ExtAuthRequiredError,
  ExtBudgetExceededError,
  ExtInternalErrorError,
  ExtInvalidParamsError,
  ExtInvalidRequestError,
  ExtInvalidStateError,
  ExtMethodNotFoundError,
  ExtNotFoundError,
  ExtParseErrorError,
  ExtPlanErrorError,
  ExtVersionMismatchError,
  ExtensionClient,
  ExtensionError,
  FILE_CHANGE_KIND_VALUES,
  FILE_DIFF_FORMAT_VALUES,
  HEALTH_STATUS_VALUES,
  HttpTransport,
  INVARIANT_ENFORCEMENT_VALUES,
  METHOD_PREFIX,
  NAMESPACE_FIELD,
  NAMESPACE_ROLE_VALUES,
  O_AUTH_FLOWS_CASES,
  PART_CASES,
  PLAN_ARTIFACT_KIND_VALUES,
  PLAN_EVENT_TYPE_VALUES,
  PLAN_PHASE_VALUES,
  PLAN_PROMPT_KIND_VALUES,
  PLAN_STATE_VALUES,
  PLAN_STEP_STATE_VALUES,
  PROJECT_FILE_CASES,
  PROJECT_REVISION_ORIGIN_VALUES,
  PROMPT_DECISION_VALUES,
  REGISTRY_KIND_VALUES,
  ROLE_VALUES,
  RpcError,
  SECURITY_SCHEME_CASES,
  SEND_MESSAGE_RESPONSE_CASES,
  SESSION_EXPORT_FORMAT_VALUES,
  STDIO_BINDING_URI,
  STREAM_RESPONSE_CASES,
  SYNC_DIRECTION_VALUES,
  SYNC_OUTCOME_VALUES,
  SYNC_STATE_VALUES,
  TASK_STATE_VALUES,
  TOOL_KIND_VALUES,
  TransportError,
  VALIDATION_KIND_VALUES,
  VALIDATION_OUTCOME_VALUES,
  VALIDATION_SEVERITY_VALUES,
  errorFromWire,
  errorNameOfStatus,
  isExtensionError,
  oAuthFlowsCase,
  oneOfCase,
  partCase,
  projectFileCase,
  securitySchemeCase,
  sendMessageResponseCase,
  streamResponseCase
};

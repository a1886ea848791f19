//! ACTS's abstract operations and errors mapped onto the method table: each
//! operation's method (§4.1, from the generated method table, whose routes
//! also give its HTTP+JSON request) and each
//! abstract error's registry entry (§6.2). The codes come from the
//! contract's error registry, not from the ACTS table: its note makes the
//! A2A specification authoritative where the two differ (the ACTS table
//! gives `VersionNotSupportedError` -32006 where A2A 1.0 §5.4 says -32009).

use super::document::{ErrorType, Operation};
use a2a::methods::markers;
use a2a::rpc::Method;
use a2a::{ErrorKind, MethodDescriptor};

/// How an operation travels.
pub enum Route {
    /// A JSON-RPC method.
    Method(&'static MethodDescriptor),
    /// An HTTP `GET` of the public Agent Card.
    PublicCard,
}

/// The route of an abstract operation.
pub fn route(operation: Operation) -> Route {
    let name = match operation {
        Operation::GetAgentCard => return Route::PublicCard,
        Operation::SendMessage => markers::SendMessage::NAME,
        Operation::SendStreamingMessage => markers::SendStreamingMessage::NAME,
        Operation::GetTask => markers::GetTask::NAME,
        Operation::ListTasks => markers::ListTasks::NAME,
        Operation::CancelTask => markers::CancelTask::NAME,
        Operation::SubscribeToTask => markers::SubscribeToTask::NAME,
        Operation::GetExtendedAgentCard => markers::GetExtendedAgentCard::NAME,
        Operation::CreatePushConfig => markers::CreateTaskPushNotificationConfig::NAME,
        Operation::GetPushConfig => markers::GetTaskPushNotificationConfig::NAME,
        Operation::ListPushConfigs => markers::ListTaskPushNotificationConfigs::NAME,
        Operation::DeletePushConfig => markers::DeleteTaskPushNotificationConfig::NAME,
    };
    match a2a::find_method(name) {
        Some(d) => Route::Method(d),
        // Every marker names a method of the table.
        None => Route::PublicCard,
    }
}

/// The method whose result type decodes what a client receives for
/// `operation` (§10): the Agent Card operations share the extended card's.
pub fn decoder(operation: Operation) -> Option<&'static MethodDescriptor> {
    match route(operation) {
        Route::Method(d) => Some(d),
        Route::PublicCard => a2a::find_method(markers::GetExtendedAgentCard::NAME),
    }
}

/// The registry errors an abstract error type stands for. Streaming and the
/// extended card without their capability are UnsupportedOperation in A2A 1.0
/// (§3.3.4); the extended card declared but not configured has its own code.
pub fn error_kinds(error: ErrorType) -> &'static [ErrorKind] {
    match error {
        ErrorType::TaskNotFoundError => &[ErrorKind::TaskNotFound],
        ErrorType::TaskNotCancelableError => &[ErrorKind::TaskNotCancelable],
        ErrorType::UnsupportedOperationError => &[ErrorKind::UnsupportedOperation],
        ErrorType::ContentTypeNotSupportedError => &[ErrorKind::ContentTypeNotSupported],
        ErrorType::InvalidParamsError => &[ErrorKind::InvalidParams],
        ErrorType::VersionNotSupportedError => &[ErrorKind::VersionNotSupported],
        ErrorType::PushNotificationNotSupportedError => &[ErrorKind::PushNotificationNotSupported],
        ErrorType::StreamingNotSupportedError => &[ErrorKind::UnsupportedOperation],
        ErrorType::ExtensionSupportRequiredError => &[ErrorKind::ExtensionSupportRequired],
        ErrorType::ExtendedCardNotSupportedError => &[
            ErrorKind::UnsupportedOperation,
            ErrorKind::ExtendedAgentCardNotConfigured,
        ],
        ErrorType::JsonParseError => &[ErrorKind::ParseError],
        ErrorType::MethodNotFoundError => &[ErrorKind::MethodNotFound],
        ErrorType::InternalError => &[ErrorKind::InternalError],
    }
}

/// `-32001 TASK_NOT_FOUND` … for messages.
pub fn describe(kinds: &[ErrorKind]) -> String {
    kinds
        .iter()
        .map(|k| format!("{} {}", k.code(), k.reason()))
        .collect::<Vec<_>>()
        .join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_but_the_public_card_is_a_method_of_the_table() {
        for op in [
            Operation::SendMessage,
            Operation::SendStreamingMessage,
            Operation::GetTask,
            Operation::ListTasks,
            Operation::CancelTask,
            Operation::SubscribeToTask,
            Operation::GetExtendedAgentCard,
            Operation::CreatePushConfig,
            Operation::GetPushConfig,
            Operation::ListPushConfigs,
            Operation::DeletePushConfig,
        ] {
            assert!(matches!(route(op), Route::Method(_)), "{op:?}");
        }
        assert!(matches!(route(Operation::GetAgentCard), Route::PublicCard));
        assert!(decoder(Operation::GetAgentCard).is_some());
    }

    #[test]
    fn error_codes_come_from_the_registry() {
        assert_eq!(error_kinds(ErrorType::VersionNotSupportedError)[0].code(), -32009);
        assert_eq!(error_kinds(ErrorType::TaskNotFoundError)[0].code(), -32001);
        assert_eq!(
            describe(error_kinds(ErrorType::JsonParseError)),
            "-32700 PARSE_ERROR"
        );
    }
}

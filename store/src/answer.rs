//! [`Answer`]: the future every store call returns.
//!
//! An embedded backend (memory, SQLite) knows most answers by the time the
//! call returns, so the answer is ready in place and costs neither an
//! allocation nor a trip through the scheduler; a networked backend
//! (PostgreSQL) hands back the boxed future of its round trips, which the
//! caller awaits on its own runtime.

use super::{StoreError, StoreResult};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The outcome of a store call, ready now or later.
#[must_use = "a store answer does nothing unless awaited"]
pub struct Answer<'a, T>(State<'a, T>);

enum State<'a, T> {
    Ready(Option<StoreResult<T>>),
    Later(Pin<Box<dyn Future<Output = StoreResult<T>> + Send + 'a>>),
}

impl<'a, T> Answer<'a, T> {
    /// An answer known now.
    pub fn ready(outcome: StoreResult<T>) -> Self {
        Answer(State::Ready(Some(outcome)))
    }

    /// An answer that `work` will give.
    pub fn later(work: impl Future<Output = StoreResult<T>> + Send + 'a) -> Self {
        Answer(State::Later(Box::pin(work)))
    }

    /// The answer with `f` applied to a success, ready as soon as this one is.
    pub fn map<U>(self, f: impl FnOnce(T) -> StoreResult<U> + Send + 'a) -> Answer<'a, U>
    where
        T: Send + 'a,
    {
        match self.0 {
            State::Ready(Some(outcome)) => Answer::ready(outcome.and_then(f)),
            State::Ready(None) => Answer::ready(Err(spent())),
            State::Later(work) => Answer::later(async move { work.await.and_then(f) }),
        }
    }
}

// Nothing is pinned structurally: a ready value is moved out, and a later
// one is already boxed.
impl<T> Unpin for Answer<'_, T> {}

impl<T> Future for Answer<'_, T> {
    type Output = StoreResult<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<StoreResult<T>> {
        match &mut self.get_mut().0 {
            State::Ready(outcome) => Poll::Ready(outcome.take().unwrap_or_else(|| Err(spent()))),
            State::Later(work) => work.as_mut().poll(cx),
        }
    }
}

/// Polling a finished answer again is a caller's bug, told as a failure
/// rather than a panic.
fn spent() -> StoreError {
    StoreError::Backend("a store answer was awaited after it completed".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn ready_and_later_answers_give_their_outcome_and_map() {
        assert_eq!(Answer::ready(Ok(2)).map(|n| Ok(n * 3)).await, Ok(6));
        assert_eq!(Answer::later(async { Ok(2) }).map(|n| Ok(n + 1)).await, Ok(3));
        let failed: Answer<'_, u8> = Answer::ready(Err(StoreError::Backend("x".into())));
        assert_eq!(
            failed.map(|n| Ok(n + 1)).await,
            Err(StoreError::Backend("x".into()))
        );
    }

    #[test]
    fn a_ready_answer_polled_twice_fails_instead_of_panicking() {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut answer = Answer::ready(Ok(1u8));
        assert_eq!(Pin::new(&mut answer).poll(&mut cx), Poll::Ready(Ok(1)));
        assert_eq!(Pin::new(&mut answer).poll(&mut cx), Poll::Ready(Err(spent())));
    }
}

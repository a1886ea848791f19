"""Server-Sent Events, as the HTTP binding streams a method's answers: each
event's ``id:`` (the producer's sequence number) and ``data:`` lines."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SseEvent", "SseParser"]


@dataclass(frozen=True)
class SseEvent:
    """One event: its id (``None`` when it has none) and its data."""

    id: str | None
    data: str


@dataclass
class SseParser:
    """Reads a stream line by line; a blank line ends an event."""

    _id: str | None = None
    _data: list[str] = field(default_factory=list)

    def feed(self, line: str) -> SseEvent | None:
        """The event `line` completes, if it completes one."""
        line = line.rstrip("\r\n")
        if not line:
            if not self._data:
                self._id = None
                return None
            event = SseEvent(self._id, "\n".join(self._data))
            self._id, self._data = None, []
            return event
        if line.startswith(":"):
            return None  # a comment: the server's keep-alive
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self._data.append(value)
        elif name == "id":
            self._id = value
        return None

    def finish(self) -> SseEvent | None:
        """The last event, when the stream ends without its blank line."""
        return self.feed("")

"""A stand-in for ``cleveragents-agent --stdio`` that records every line it
reads (to the file ``$FAKE_AGENT_LOG``), so the tests can assert the exact
messages the stdio transport sends: it answers ``initialize`` with the
schema's example, streams two events for any other streaming request and
holds the stream open until it is cancelled."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

SCHEMA = Path(__file__).resolve().parents[3] / "schema" / "cleveragents-ext.json"


def main() -> None:
    table = json.loads(SCHEMA.read_text())["x-methods"]
    initialized = table["initialize"]["examples"][0]["result"]
    event = table["_cleveragents/events/subscribe"]["examples"][0]["events"][0]
    log = open(os.environ["FAKE_AGENT_LOG"], "a", encoding="utf-8")
    open_streams: set[Any] = set()

    def send(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        log.write(line)
        log.flush()
        message = json.loads(line)
        method, id = message.get("method"), message.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": id, "result": initialized})
        elif method == "stream/cancel":
            target = message["params"]["requestId"]
            send({"jsonrpc": "2.0", "id": id, "result": {"cancelled": target in open_streams}})
            if target in open_streams:
                open_streams.discard(target)
                send({"jsonrpc": "2.0", "id": target, "result": None})
        else:
            for seq in (1, 2):
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "stream/event",
                        "params": {
                            "requestId": id,
                            "seq": seq,
                            "taskSeq": seq + 10,
                            "event": event,
                        },
                    }
                )
            if method == "stream/resume":
                send({"jsonrpc": "2.0", "id": id, "result": None})
            else:
                open_streams.add(id)


if __name__ == "__main__":
    main()

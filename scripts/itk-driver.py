#!/usr/bin/env python3
"""Driver behind scripts/itk (not meant to be run by hand; see that script).

It imports the A2A interop kit's ACTS runner core (test_suite.acts) and its
generated A2A protobuf module (pyproto) from the ITK checkout given with
--itk-dir, so it runs in the runner's venv with that checkout on sys.path.

  itk-driver.py requirements PYPROJECT
      The pyproject's dependencies as pip requirements. A dependency taken
      from a git tag (`name[extras] @ git+...@v1.0.3`) is taken from the
      package registry at that release instead (`name[extras]==1.0.3`).

  itk-driver.py acts --itk-dir D --agent-cmd CMD --binding B [--level L]
                     [--behaviors FILE] [--log-dir DIR]
      One binding of the ACTS corpus, with the ITK's conventions: a fresh
      agent per pass, the runner variables and capabilities, the bearer token
      on abstract operations, gating on the declared tck-* behaviours, then
      the reduced-capabilities and auth deviation passes re-running only the
      skips each can clear. Prints one summary line, then the failures.

  itk-driver.py traversal --itk-dir D --agent-cmd CMD --partner NAME|CWD|CMD
                          [--partner ...] [--binding B ...] [--log-dir DIR]
      For each partner and each binding both agents serve, in both directions:
      sends the first agent an ITK Instruction (CallAgent -> the second agent,
      whose nested instruction is a ReturnResponse token) over that binding
      and checks the token comes back. One line per pair and binding.

CMD is a command line with {http} and {grpc} standing for the two loopback
ports the agent is given.
Exit status: 0 all passed, 1 something failed, 2 could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import importlib
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import uuid
from pathlib import Path

CARD_PATH = '/.well-known/agent-card.json'
VERSION_HEADERS = {'A2A-Version': '1.0'}
CARD_TIMEOUT_S = float(os.environ.get('ITK_CARD_TIMEOUT', '90'))
CALL_TIMEOUT_S = float(os.environ.get('ITK_CALL_TIMEOUT', '90'))

# The ITK's conventions for a conformance run (its acts_runner.py): the token
# presented on abstract operations, the variables the corpus leaves to the
# runner, and the environment switches of the two deviation passes together
# with the skip reasons each pass may clear.
AUTH_TOKEN = 'itk-valid-token'
RUNNER_VARIABLES = {
    'insufficientAuthToken': 'itk-insufficient-token',
    'otherUserTaskId': '00000000-0000-0000-0000-0000000000ff',
}
DEVIATIONS = (
    # (environment variable, skip reason it clears, check on the deviated card)
    ('ITK_ACTS_REDUCED_CAPABILITIES',
     re.compile(r'agent card capability (\w+)=True, needs False'), 'reduced'),
    ('ITK_ACTS_AUTH',
     # The ITK's runner words this skip so; older runner cores, which read
     # the requirement as a card capability, say `capability authentication`.
     re.compile(r'agent card (?:capability )?authentication=False, needs True'), 'auth'),
)

# Our binding names, the ACTS corpus's, and the card's.
ACTS_BINDING = {'jsonrpc': 'jsonrpc', 'http_json': 'rest', 'grpc': 'grpc'}
CARD_BINDING = {'JSONRPC': 'jsonrpc', 'HTTP+JSON': 'http_json', 'HTTP_JSON': 'http_json',
                'REST': 'http_json', 'GRPC': 'grpc'}


def die(message: str) -> None:
    print(f'itk-driver: {message}', file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- processes

_started: list[subprocess.Popen] = []


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    # Each agent runs in a process group of its own (tsx, uv and the like
    # start children), so the group is what gets signalled.
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def stop_all() -> None:
    while _started:
        _stop(_started.pop())


def _on_signal(signum, _frame):
    stop_all()
    sys.exit(128 + signum)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Agent:
    """One agent process on fresh loopback ports, up once its card is served."""

    def __init__(self, name: str, cmd: str, *, cwd: str | None = None,
                 env: dict[str, str] | None = None, log_dir: Path | None = None):
        self.name = name
        self.http_port, self.grpc_port = free_port(), free_port()
        while self.grpc_port == self.http_port:
            self.grpc_port = free_port()
        argv = [a.format(http=self.http_port, grpc=self.grpc_port) for a in shlex.split(cmd)]
        log_dir = log_dir or Path(tempfile.gettempdir())
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log = log_dir / f'{name}.log'
        with open(self.log, 'w') as out:
            self.proc = subprocess.Popen(
                argv, cwd=cwd, env={**os.environ, **(env or {})}, stdout=out,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        _started.append(self.proc)
        self.base = f'http://127.0.0.1:{self.http_port}'
        self.card = self._wait_for_card()

    def _wait_for_card(self) -> dict:
        import httpx
        deadline = time.monotonic() + CARD_TIMEOUT_S
        last = 'no answer'
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f'{self.name} exited with {self.proc.returncode} '
                                   f'before serving its card (log: {self.log})')
            try:
                r = httpx.get(self.base + CARD_PATH, headers=VERSION_HEADERS, timeout=5)
                if r.status_code == 200:
                    return r.json()
                last = f'HTTP {r.status_code}'
            except (httpx.HTTPError, ValueError) as exc:
                last = str(exc) or type(exc).__name__
            time.sleep(0.3)
        raise RuntimeError(f'{self.name} served no card at {self.base}{CARD_PATH} within '
                           f'{CARD_TIMEOUT_S:.0f}s ({last}; log: {self.log})')

    def interfaces(self) -> dict[str, str]:
        """binding -> URL, preferring each binding's protocol-1.0 interface."""
        found: dict[str, str] = {}
        for i in self.card.get('supportedInterfaces') or []:
            b = CARD_BINDING.get(str(i.get('protocolBinding', '')).upper())
            if b is None or not i.get('url'):
                continue
            if b not in found or str(i.get('protocolVersion', '')) == '1.0':
                found[b] = str(i['url'])
        return found

    def stop(self) -> None:
        _stop(self.proc)
        if self.proc in _started:
            _started.remove(self.proc)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


# --------------------------------------------------------------------- ACTS

def acts(args) -> int:
    sys.path.insert(0, str(args.itk_dir))
    try:
        from test_suite.acts import behaviors as sut_behaviors
        from test_suite.acts.dispatcher import for_binding
        from test_suite.acts.loader import LoadedSuite, load_suite
        from test_suite.acts.runner import Outcome, Runner
        from test_suite.acts.schema import Level, RunnerRequirement, TransportBinding
    except ImportError as exc:
        die(f'cannot import the ACTS runner from {args.itk_dir}: {exc}')

    binding = TransportBinding(ACTS_BINDING[args.binding])
    capabilities = [RunnerRequirement.HEADER_INSPECTION, RunnerRequirement.AUTH_CREDENTIALS,
                    RunnerRequirement.CONCURRENT_STREAMS, RunnerRequirement.STREAM_DISCONNECT]
    declared = None
    if args.behaviors:
        if Path(args.behaviors).is_file():
            declared = sut_behaviors.load(Path(args.behaviors)).prefixes()
        else:
            print(f'itk-acts {args.binding}: warning: {args.behaviors} not found, '
                  f'behaviour gating is off', file=sys.stderr)

    full = load_suite(args.itk_dir / 'scenarios' / 'acts' / 'suite.acts.yaml')
    tests = [t for t in full.tests if t.test.applies_to(binding)
             and (args.level == 'all' or t.test.level is Level.MUST)]
    if args.test:
        tests = [t for t in tests if t.id in set(args.test)]
    if not tests:
        die(f'no selected test applies to {args.binding}')

    def subset(ts):
        return LoadedSuite(tests=ts, variables=full.variables, sources=full.sources)

    def dispatcher(agent: Agent):
        url = agent.interfaces().get(args.binding)
        if url is None:
            raise RuntimeError(f'the card advertises no {args.binding} interface')
        auth = {'Authorization': f'Bearer {AUTH_TOKEN}'}
        if binding is TransportBinding.GRPC:
            target = url.removeprefix('http://').removeprefix('https://').rstrip('/')
            return for_binding(binding, target, agent_card_url=agent.base, default_headers=auth)
        if binding is TransportBinding.JSONRPC:
            return for_binding(binding, url, rpc_path='/', agent_card_url=agent.base,
                               default_headers=auth)
        return for_binding(binding, url, agent_card_url=agent.base, default_headers=auth)

    async def run_pass(suite, name: str, env: dict[str, str]):
        with Agent(name, args.agent_cmd, env=env, log_dir=args.log_dir) as agent:
            d = dispatcher(agent)
            async with d:
                runner = Runner(d, variables=dict(RUNNER_VARIABLES), agent_card=agent.card,
                                sut_behaviors=declared, capabilities=capabilities)
                return await asyncio.wait_for(runner.run_suite(suite), args.pass_timeout), agent.card

    async def main():
        results, _ = await run_pass(subset(tests), f'acts-{args.binding}', {})
        notes = []
        for env_var, pattern, kind in DEVIATIONS:
            blocked = {}
            for r in results:
                m = pattern.search(r.skip_reason or '')
                if m:
                    blocked[r.id] = m.group(1) if m.groups() else ''
            if not blocked:
                continue
            try:
                rerun, card = await run_pass(subset([t for t in tests if t.id in blocked]),
                                             f'acts-{args.binding}-{kind}', {env_var: '1'})
            except Exception as exc:  # the deviation is worth a note, not the binding
                notes.append(f'{env_var} pass could not run ({exc}); '
                             f'{", ".join(sorted(blocked))} stay skipped')
                continue
            if kind == 'reduced':
                still = sorted(n for n in set(blocked.values())
                               if (card.get('capabilities') or {}).get(n))
                refused = f'the card still advertises {", ".join(still)}' if still else None
            else:
                absent = [k for k in ('securitySchemes', 'securityRequirements') if not card.get(k)]
                refused = f'the card declares no {", ".join(absent)}' if absent else None
            if refused:
                notes.append(f'with {env_var}=1 {refused}; {", ".join(sorted(blocked))} stay skipped')
                continue
            replaced = {r.id: r for r in rerun}
            results = [replaced.get(r.id, r) for r in results]
            note = f'{env_var}=1 pass re-ran {len(blocked)}: {", ".join(sorted(blocked))}'
            still = sorted(r.id for r in rerun if r.result is Outcome.SKIP)
            if still:
                note += f'; still skipped there: {", ".join(still)} ({rerun[0].skip_reason if len(still) == len(rerun) else "see --show-skips"})'
            notes.append(note)
        return results, notes

    try:
        results, notes = asyncio.run(main())
    except Exception as exc:
        print(f'itk-acts {args.binding}: could not run: {exc}')
        return 2

    def counts(rs):
        n = {o: sum(r.result is o for r in rs) for o in Outcome}
        return (f'{n[Outcome.PASS]}/{len(rs)} passed, {n[Outcome.FAIL]} failed, '
                f'{n[Outcome.ERROR]} errors, {n[Outcome.SKIP]} skipped')

    must = [r for r in results if r.level is Level.MUST]
    line = f'itk-acts {args.binding}: MUST {counts(must)}'
    if args.level == 'all':
        line += f' · all {counts(results)}'
    print(line)
    bad = [r for r in results if r.result in (Outcome.FAIL, Outcome.ERROR)]
    for r in bad:
        f = r.failure
        detail = f.message if f else ''
        if f and (f.expected or f.actual):
            detail += f' (expected {f.expected}, actual {f.actual})'
        step = f' step {f.step_id}' if f and f.step_id else ''
        print(f'  {r.result.value.upper()} {r.id} [{r.level.value}]{step}: {detail}')
    for note in notes:
        print(f'  note: {note}')
    if args.show_skips:
        for r in results:
            if r.result is Outcome.SKIP:
                print(f'  SKIP {r.id} [{r.level.value}]: {r.skip_reason}')
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{'id': r.id, 'level': r.level.value, 'result': r.result.value,
              'skip_reason': r.skip_reason, 'failure': r.failure.as_json() if r.failure else None}
             for r in results], indent=1))
    return 1 if bad else 0


# ---------------------------------------------------------------- traversal

def instruction_module(itk_dir: Path, work: Path):
    """instruction_pb2 generated now from the ITK checkout's protos/."""
    from grpc_tools import protoc
    proto_dir = itk_dir / 'protos'
    out = work / 'instruction_gen'
    out.mkdir(parents=True, exist_ok=True)
    rc = protoc.main(['protoc', f'-I{proto_dir}', f'--python_out={out}',
                      str(proto_dir / 'instruction.proto')])
    if rc != 0:
        die(f'protoc could not compile {proto_dir / "instruction.proto"}')
    sys.path.insert(0, str(out))
    return importlib.import_module('instruction_pb2')


def texts_of(result: dict) -> str:
    """The agent's text, as the ITK reads a SendMessage result: the message,
    or the task's status message and the agent messages of its history."""
    if 'task' in result:
        result = result['task']
    elif 'message' in result:
        result = result['message']
    out = []
    def parts(msg):
        out.extend(p['text'] for p in (msg or {}).get('parts') or [] if p.get('text'))
    if 'parts' in result:
        parts(result)
    else:
        parts((result.get('status') or {}).get('message'))
    for msg in result.get('history') or []:
        if msg.get('role') in ('ROLE_AGENT', 'agent'):
            parts(msg)
    return ''.join(out).strip()


async def send_instruction(agent: Agent, binding: str, inst, itk_dir: Path) -> str:
    """SendMessage carrying ``inst`` to ``agent`` over ``binding``; its text."""
    import httpx
    raw = inst.SerializeToString()
    url = agent.interfaces()[binding]
    message = {'role': 'ROLE_USER', 'messageId': str(uuid.uuid4()),
               'parts': [{'raw': base64.b64encode(raw).decode(),
                          'mediaType': 'application/x-protobuf', 'filename': 'instruction.bin'}]}
    if binding == 'grpc':
        import grpc
        from google.protobuf.json_format import MessageToDict
        if str(itk_dir) not in sys.path:
            sys.path.insert(0, str(itk_dir))
        a2a_pb2 = importlib.import_module('pyproto.a2a_pb2')
        a2a_grpc = importlib.import_module('pyproto.a2a_pb2_grpc')
        request = a2a_pb2.SendMessageRequest(message=a2a_pb2.Message(
            role=a2a_pb2.ROLE_USER, message_id=message['messageId'],
            parts=[a2a_pb2.Part(raw=raw, media_type='application/x-protobuf',
                                filename='instruction.bin')]))
        target = url.removeprefix('http://').removeprefix('https://').rstrip('/')
        async with grpc.aio.insecure_channel(target) as channel:
            reply = await a2a_grpc.A2AServiceStub(channel).SendMessage(
                request, timeout=CALL_TIMEOUT_S, metadata=[('a2a-version', '1.0')])
        return texts_of(MessageToDict(reply))
    async with httpx.AsyncClient(timeout=CALL_TIMEOUT_S) as client:
        if binding == 'jsonrpc':
            r = await client.post(url, headers=VERSION_HEADERS, json={
                'jsonrpc': '2.0', 'id': str(uuid.uuid4()), 'method': 'SendMessage',
                'params': {'message': message}})
            body = r.json()
            if 'error' in body:
                raise RuntimeError(f'JSON-RPC error {json.dumps(body["error"])[:300]}')
            return texts_of(body.get('result') or {})
        r = await client.post(url.rstrip('/') + '/message:send', headers=VERSION_HEADERS,
                              json={'message': message})
        if r.status_code != 200:
            raise RuntimeError(f'HTTP {r.status_code}: {r.text[:300]}')
        return texts_of(r.json())


def traversal(args) -> int:
    return asyncio.run(traversal_async(args))


async def traversal_async(args) -> int:
    work = Path(tempfile.mkdtemp(prefix='itk-traversal-'))
    pb = instruction_module(args.itk_dir, work)
    bindings = args.binding or ['jsonrpc', 'http_json', 'grpc']
    status = 0
    try:
        ours = Agent('ours', args.agent_cmd, log_dir=args.log_dir)
    except RuntimeError as exc:
        print(f'itk-traversal: our agent did not start: {exc}')
        return 2
    for spec in args.partner:
        name, cwd, cmd = spec.split('|', 2)
        try:
            partner = Agent(name, cmd, cwd=cwd or None, log_dir=args.log_dir)
        except RuntimeError as exc:
            print(f'itk-traversal ours<->{name}: not run: {exc}')
            status = max(status, 2)
            continue
        with partner:
            shared = [b for b in bindings
                      if b in ours.interfaces() and b in partner.interfaces()]
            for b in bindings:
                if b not in shared:
                    print(f'itk-traversal ours<->{name} {b}: not run: not served by both')
            for first, second, label in ((ours, partner, f'ours→{name}'),
                                         (partner, ours, f'{name}→ours')):
                for b in shared:
                    token = f'traversal-completed:{label}:{b}'
                    inst = pb.Instruction()
                    call = inst.call_agent
                    call.transport = b
                    call.agent_card_uri = second.base
                    call.instruction.return_response.response = token
                    call.send_message.SetInParent()
                    try:
                        text = await asyncio.wait_for(
                            send_instruction(first, b, inst, args.itk_dir), CALL_TIMEOUT_S + 10)
                        if token in text:
                            print(f'itk-traversal {label} {b}: ok')
                            continue
                        print(f'itk-traversal {label} {b}: FAILED: answered {text[:300]!r}')
                    except Exception as exc:
                        print(f'itk-traversal {label} {b}: FAILED: '
                              f'{type(exc).__name__}: {str(exc)[:300]}')
                    status = max(status, 1)
    ours.stop()
    return status


# --------------------------------------------------------------------- main

def requirements(args) -> int:
    deps = tomllib.loads(Path(args.pyproject).read_text())['project'].get('dependencies', [])
    for dep in deps:
        m = re.match(r'\s*([A-Za-z0-9_.\-]+(?:\[[^\]]*\])?)\s*@\s*git\+\S+@v?(\d+(?:\.\d+)*)'
                     r'(?:-?(alpha|beta|rc)\.?(\d+))?\s*$', dep)
        if m:
            pre = {'alpha': 'a', 'beta': 'b', 'rc': 'rc'}.get(m.group(3) or '', '')
            dep = f'{m.group(1)}=={m.group(2)}{pre}{m.group(4) or ""}'
        elif '@' in dep and '://' in dep:
            die(f'cannot take {dep!r} from the package registry')
        print(dep)
    return 0


def main() -> int:
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('requirements')
    r.add_argument('pyproject')
    a = sub.add_parser('acts')
    t = sub.add_parser('traversal')
    for p in (a, t):
        p.add_argument('--itk-dir', type=Path, required=True)
        p.add_argument('--agent-cmd', required=True)
        p.add_argument('--log-dir', type=Path)
    a.add_argument('--binding', required=True, choices=sorted(ACTS_BINDING))
    a.add_argument('--level', default='all', choices=['must', 'all'])
    a.add_argument('--behaviors')
    a.add_argument('--json')
    a.add_argument('--show-skips', action='store_true')
    a.add_argument('--pass-timeout', type=float, default=900.0)
    a.add_argument('-t', '--test', action='append')
    t.add_argument('--partner', action='append', default=[])
    t.add_argument('--binding', action='append', choices=sorted(ACTS_BINDING))
    args = ap.parse_args()
    try:
        return {'requirements': requirements, 'acts': acts, 'traversal': traversal}[args.cmd](args)
    finally:
        stop_all()


if __name__ == '__main__':
    sys.exit(main())

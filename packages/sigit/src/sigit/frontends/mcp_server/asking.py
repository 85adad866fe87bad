"""Asking the caller of a `tools/call` for permission, in both MCP protocol eras.

2025-11-25 and older: the server sends `elicitation/create` while the call runs and waits for the
answer. 2026-07-28 has no server-initiated requests: the call answers `input_required` with the
question, and the client retries the same call carrying the answer (`inputResponses`) and the
`requestState` it was given. siGit's permission questions come from deep inside a running call (an
agent turn, a tool about to run), so in that era the call keeps running here, stopped at its
question, and each retry resumes it: the tool runs only after the answer.

The SDK's `RequestStateBoundary` seals `requestState` (AES-GCM under a key of this process, with an
expiry) and binds it to the call's tool name and arguments; inside it, the state names a waiting
call by a random key that is used once, together with digests of the call and of the question
asked, checked again here. A response presented with another call's state, a replay of a used
one, or one past its time, is refused and approves nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types.version import is_version_at_least

from ...events import PermissionAsked, PermissionReply
from .approval import Question, refuse

log = logging.getLogger(__name__)

ROUNDS_VERSION: Final = "2026-07-28"
"""The first protocol whose calls ask by `input_required` instead of a server-initiated request."""
ANSWER_WAIT_S: Final = 600.0
"""How long a call waits for its caller's answer between rounds (and how long its `requestState`
lives); then the call is cancelled, as if the caller had cancelled it."""
QUESTION_KEY: Final = "permission"
"""The key of the permission question in `inputRequests` (and of its answer in `inputResponses`)."""
_STATE_VERSION: Final = 1

CURRENT_CALL: ContextVar[Caller | None] = ContextVar("sigit_mcp_call", default=None)
"""The caller of the `tools/call` being served in this task (and the tasks it starts)."""

Run = Callable[["Caller"], Awaitable[types.CallToolResult]]
"""What a call does once it is served: the tool or the task, given whom to ask."""


def request_state_boundary() -> RequestStateBoundary:
    """The SDK middleware that seals the `requestState` this server hands out and checks what comes back."""
    return RequestStateBoundary(RequestStateSecurity.ephemeral(ttl=ANSWER_WAIT_S), default_audience="sigit")


def asks_by_rounds(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this request's protocol asks by `input_required` (2026-07-28 and later)."""
    return is_version_at_least(ctx.protocol_version, ROUNDS_VERSION)


async def approve(request: PermissionAsked) -> PermissionReply:
    """The sessions' approver: ask the caller of the call being served, or refuse (nobody to ask)."""
    caller = CURRENT_CALL.get()
    if caller is None:
        return refuse(request)
    return await caller.ask(request)


class Caller:
    """The caller of one `tools/call`, across its rounds: where its permission questions go, and its
    progress (to the request of the current round)."""

    def __init__(self, ctx: ServerRequestContext[Any, Any], *, rounds: bool) -> None:
        self.ctx = ctx
        self.rounds = rounds
        self.waiting: _Waiting | None = None
        """The question out between rounds and the answer it waits for (2026-07-28)."""
        self.posted = asyncio.Event()
        self._one_at_a_time = asyncio.Lock()

    def can_be_asked(self) -> bool:
        """The client declared form elicitation, and (before 2026-07-28) this channel may send it a request."""
        caps = self.ctx.session.client_capabilities
        elicitation = caps.elicitation if caps is not None else None
        if elicitation is None or (elicitation.form is None and elicitation.url is not None):
            return False
        return self.rounds or self.ctx.session.can_send_request

    async def ask(self, request: PermissionAsked) -> PermissionReply:
        if not self.can_be_asked():
            return refuse(request)
        question = Question(request)
        if not self.rounds:
            try:
                result = await self.ctx.session.elicit_form(
                    question.message, question.schema, related_request_id=self.ctx.request_id
                )
            except Exception as exc:  # the client failed the request: nobody said yes
                log.warning("elicitation failed: %s", exc)
                return PermissionReply(False, reason=f"the permission request to the MCP client failed: {exc}")
            return question.reply(result)
        async with self._one_at_a_time:  # one question a round; a parallel call's waits for the next
            self.waiting = _Waiting(question, asyncio.get_running_loop().create_future())
            self.posted.set()
            try:
                return await self.waiting.answer
            finally:
                self.waiting = None

    async def report_progress(self, progress: float, message: str) -> None:
        """Progress on the current round's request; none between rounds (no request is open)."""
        if self.waiting is None:
            await self.ctx.session.report_progress(progress, None, message)


@dataclass
class _Waiting:
    question: Question
    answer: asyncio.Future[PermissionReply]


@dataclass
class _Call:
    """A 2026-07-28 call in progress: its caller, the work running it, and what binds an answer to it."""

    caller: Caller
    work: asyncio.Task[types.CallToolResult]
    digest: str
    deadline: float = 0.0
    """The loop time its answer must come by."""
    expiry: asyncio.TimerHandle | None = field(default=None)
    """What cancels it at the deadline, if nobody answers."""


class Rounds:
    """Serves `tools/call` in either era, and keeps the 2026-07-28 calls waiting for an answer."""

    def __init__(self) -> None:
        self._waiting: dict[str, _Call] = {}

    async def serve(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams, run: Run
    ) -> types.CallToolResult | types.InputRequiredResult:
        if not asks_by_rounds(ctx):
            caller = Caller(ctx, rounds=False)
            token = CURRENT_CALL.set(caller)
            try:
                return await run(caller)
            finally:
                CURRENT_CALL.reset(token)
        if params.request_state is not None:
            return await self._resume(ctx, params)
        caller = Caller(ctx, rounds=True)
        token = CURRENT_CALL.set(caller)
        try:  # the work copies the context, so its approver finds this caller
            work = asyncio.ensure_future(run(caller))
        finally:
            CURRENT_CALL.reset(token)
        return await self._until_asked_or_done(_Call(caller, work, _call_digest(params)))

    async def _resume(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        """A retry with an answer: the call waiting under its state gets it (once), and goes on."""
        state = _read_state(params.request_state)
        call = self._waiting.pop(state.get("wait", ""), None) if state is not None else None
        if call is not None and asyncio.get_running_loop().time() >= call.deadline:
            self._cancel(call)  # its timer has not run yet: too late all the same
            call = None
        if state is None or call is None:
            raise MCPError(
                types.INVALID_PARAMS,
                "this requestState answers no question this server is waiting on (it was answered already, "
                "or timed out): call the tool again",
            )
        if call.expiry is not None:
            call.expiry.cancel()
        waiting = call.caller.waiting
        digest = _call_digest(params)
        if (
            waiting is None
            or state.get("call") != digest
            or digest != call.digest
            or (state.get("asks") != _question_digest(waiting.question))
        ):
            call.work.cancel()  # its question was answered for another call: nobody said yes to it
            log.warning("a permission answer came with the requestState of another call; both refused")
            raise MCPError(types.INVALID_PARAMS, "this requestState belongs to another call; nothing was approved")
        call.caller.ctx = ctx
        answer = (params.input_responses or {}).get(QUESTION_KEY)
        if isinstance(answer, types.ElicitResult):
            reply = waiting.question.reply(answer)
        else:
            reply = waiting.question.unanswered("came back without an answer")
        waiting.answer.set_result(reply)
        return await self._until_asked_or_done(call)

    async def _until_asked_or_done(self, call: _Call) -> types.CallToolResult | types.InputRequiredResult:
        """Wait for the call's result, or for its next question, which goes back as `input_required`."""
        caller = call.caller
        posted = asyncio.ensure_future(caller.posted.wait())
        try:
            await asyncio.wait({call.work, posted}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # this round was cancelled: so is the call
            call.work.cancel()
            with anyio.CancelScope(shield=True):
                await asyncio.wait({call.work})
            raise
        finally:
            posted.cancel()
        if call.work.done():
            return call.work.result()
        caller.posted.clear()
        waiting = caller.waiting
        assert waiting is not None  # posted, and only an answer clears it
        key = secrets.token_urlsafe(24)
        self._waiting[key] = call
        loop = asyncio.get_running_loop()
        call.deadline = loop.time() + ANSWER_WAIT_S
        call.expiry = loop.call_later(ANSWER_WAIT_S, self._expire, key)
        state = {"v": _STATE_VERSION, "wait": key, "call": call.digest, "asks": _question_digest(waiting.question)}
        return types.InputRequiredResult(
            input_requests={QUESTION_KEY: waiting.question.elicitation()},
            request_state=json.dumps(state, separators=(",", ":")),
        )

    def _expire(self, key: str) -> None:
        call = self._waiting.pop(key, None)
        if call is not None:
            self._cancel(call)

    @staticmethod
    def _cancel(call: _Call) -> None:
        log.warning("no answer to a permission question within %.0f s: the call is cancelled", ANSWER_WAIT_S)
        if call.expiry is not None:
            call.expiry.cancel()
        call.work.cancel()

    async def close(self) -> None:
        """The caller has gone: cancel the calls still waiting for an answer."""
        calls = list(self._waiting.values())
        self._waiting.clear()
        for call in calls:
            if call.expiry is not None:
                call.expiry.cancel()
            call.work.cancel()
        if calls:
            await asyncio.wait({call.work for call in calls})


def _call_digest(params: types.CallToolRequestParams) -> str:
    """The call an answer may approve: its tool and its exact arguments."""
    return _digest({"tool": params.name, "arguments": params.arguments or {}})


def _question_digest(question: Question) -> str:
    """The question an answer answers: the prepared tool call, its arguments, and what was shown."""
    request = question.request
    return _digest({"tool": request.name, "arguments": request.arguments, "message": question.message})


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _read_state(text: str | None) -> dict[str, Any] | None:
    """The plaintext the boundary unsealed (one this process minted), or None where it is not ours."""
    try:
        state = json.loads(text or "")
    except ValueError:
        return None
    if not isinstance(state, dict) or state.get("v") != _STATE_VERSION or not isinstance(state.get("wait"), str):
        return None
    return state

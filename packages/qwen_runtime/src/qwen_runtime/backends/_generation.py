"""The token loop both in-process backends (llama.cpp, transformers) share.

A backend supplies the model-specific primitives (tokenize, evaluate tokens into its KV cache, a
writable view of the last logits, a sampler, token bytes, end-of-turn tokens); `LocalRuntime` owns
everything between them and the events: prompt rendering, prefix reuse, prefill, stop strings,
incremental UTF-8 decoding, the reply parser, reasoning-token counting, the thinking budget, the
llguidance tool-call constraint (mask, consume, fast-forward), cancellation, usage and `Finished`.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..calls.toolformat import template_traits, tool_call_format
from ..errors import ContextOverflowError, QwenRuntimeError
from ..grammar.constrain import ToolCallConstraint
from ..images import ImageError
from ..models.chat_format import render_prompt
from ..parsing import ReplyParser
from ..runtime import CancelToken, Runtime, cancelled_event
from ..speed.draft_control import DraftController, DraftPolicy
from ..speed.drafting import Drafter, DraftLength, DraftReport, DraftSource, paused_report
from ..speed.save_points import save_points
from ..types import (
    ChatRequest,
    Event,
    Finished,
    FinishReason,
    Sampling,
    ToolCallError,
    ToolCallEvent,
    Usage,
    UserMessage,
)
from .token_text import (
    REQUIRED_THINKING_CAP,
    THINK_CLOSE_TEXT,
    StopFilter,
    TokenSampler,
    Utf8Detokenizer,
    default_thinking_budget,
    starts_in_think,
)

log = logging.getLogger(__name__)

class _WaiterCancelled(CancelToken):
    """A prefill's cancel token: cancelled once a request waiting for the prefill is (Ctrl+C during a
    session's first, cold prompt evaluation must not wait for the whole system prompt), or the
    prefill's own `also` (a session closing while its turn-end prefill runs)."""

    def __init__(self, runtime: LocalRuntime, also: CancelToken | None = None) -> None:
        super().__init__()
        self._runtime = runtime
        self._also = also

    @property
    def cancelled(self) -> bool:
        return (self._event.is_set() or (self._also is not None and self._also.cancelled)
                or any(token.cancelled for token in list(self._runtime._waiting)))

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """`callback` when any of the tokens this one answers for is cancelled: its own, `also`, or a
        waiting request's (through the runtime's `_prefill_stop`, which the request's token calls)."""
        forgets = [super().on_cancel(callback)]
        if self._also is not None:
            forgets.append(self._also.on_cancel(callback))
        self._runtime._prefill_stop = callback
        if self.cancelled:
            callback()

        def forget() -> None:
            for each in forgets:
                each()
            if self._runtime._prefill_stop is callback:
                self._runtime._prefill_stop = None

        return forget


class LocalRuntime(Runtime):
    """A model evaluated in this process with a KV cache kept between requests; one generation at a time."""

    enforces_thinking_budget = True
    #: evaluate tokens the tool-call grammar forces in one batch instead of sampling them one by one
    fast_forward: bool = True

    chat_template: str
    _bos_text: str = ""
    _eos_text: str = ""
    _stop_ids: frozenset[int] = frozenset()
    last_restored: int = 0
    """Of the tokens the last `reuse_prefix` kept, those restored from a saved state."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._prefilled: tuple[int, int, int] = (0, 0, 0)  # kept, evaluated up to, restored by `prefill`
        self._waiting: list[CancelToken] = []
        self._prefill_stop: Callable[[], None] | None = None
        """What stops the prefill holding the model part-way (set while one evaluates), for a waiting
        request that is cancelled."""
        """Cancel tokens of requests waiting for the lock: a prefill in the way stops when one is cancelled."""

    # ---------------------------------------------------------------- what a backend supplies

    @abstractmethod
    def tokenize(self, text: str) -> list[int]:
        """Token ids of `text`, special tokens written in it (`<|im_start|>`) as single tokens."""

    @abstractmethod
    def piece(self, token: int) -> bytes:
        """The bytes of one token, special tokens as their text."""

    @abstractmethod
    def is_end(self, token: int) -> bool:
        """True for tokens that end the turn."""

    @abstractmethod
    def lltokenizer(self) -> Any:
        """llguidance's view of the vocabulary."""

    @abstractmethod
    def reuse_prefix(self, tokens: Sequence[int]) -> int:
        """Keep the cache of the longest common prefix with `tokens` (at most all but the last)."""

    @abstractmethod
    def eval_tokens(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> bool:
        """Evaluate `tokens` after the cached ones; False when cancelled in between."""

    @abstractmethod
    def logits(self) -> npt.NDArray[np.float32]:
        """The last evaluated position's logits, writable in place (the constraint masks them)."""

    @abstractmethod
    def new_sampler(self, sampling: Sampling) -> TokenSampler:
        """A sampler for one request."""

    @abstractmethod
    def clear_cache_unlocked(self) -> None:
        """Forget the KV cache (the caller holds the lock)."""

    def eval_prompt(
        self, request: ChatRequest, tokens: Sequence[int], start: int, cancel: CancelToken | None = None
    ) -> bool:
        """Evaluate `tokens[start:]` of `request`'s prompt (a backend with a prompt cache saves states
        on the way); False when cancelled in between."""
        return self.eval_tokens(tokens[start:], cancel)

    def prefill_prefix(self, tokens: Sequence[int]) -> int:
        """Like `reuse_prefix`, for `prefill`: the tokens already in the cache, all of them allowed."""
        return self.reuse_prefix(tokens)

    def take_prefilled(self, cached: int) -> tuple[int, int]:
        """Of `cached` tokens the request about to run keeps, (restored from saved states, evaluated by
        `prefill`), counting what `prefill` did once."""
        kept, end, restored = self._prefilled
        self._prefilled = (0, 0, 0)
        return self.last_restored or min(cached, restored), max(0, min(cached, end) - kept)

    def check_open(self) -> None:
        """Raise when the model cannot generate any more (closed)."""

    def prompt_tokens(self, prompt: str) -> list[int]:
        """The tokens the model evaluates for `prompt` (a backend may add a BOS token)."""
        return self.tokenize(prompt)

    # ---------------------------------------------------------------- speculative decoding (drafting.py)

    #: where drafts come from; None: no drafting (the backend cannot verify drafts, or it is off)
    draft_source: DraftSource | None = None
    #: the longest draft `truncate` can take back (a hybrid model: its recurrent-state snapshots)
    max_draft: int = DraftLength.k_max
    #: batch size -> cost relative to one step, measured beforehand (`qwen-runtime tune`); None: defaults
    verify_costs: Mapping[int, float] | None = None
    #: what chooses draft lengths; kept for the runtime's life so what it measured serves every request
    #: (None: a `DraftController` is made on first use; a benchmark may set a `FixedDraftLength`)
    draft_policy: DraftPolicy | None = None
    #: what rollback snapshots added to a step in an earlier process here (None: not known)
    overhead_prior: float | None = None

    def draft_controller(self) -> DraftPolicy:
        """The runtime's draft length policy, made on first use with its `max_draft`, `verify_costs` and
        `overhead_prior`."""
        policy = self.draft_policy
        if policy is None:
            policy = self.draft_policy = DraftController(self.max_draft, verify_costs=self.verify_costs,
                                                         overhead_prior=self.overhead_prior)
        return policy

    def request_finished(self) -> None:
        """A request ended (whatever its reason), under the runtime's lock: a backend may keep what it
        learned (`LlamaCppRuntime` saves the draft costs it measured for the next process)."""

    def drafting_now(self) -> bool:
        """Whether the request about to run drafts (called once per request, under the runtime's lock): a
        backend that can drop what drafting costs while no draft is asked for (a hybrid's rollback
        snapshots) asks its controller here, and gets ready either way."""
        return self.draft_source is not None

    def eval_with_rows(self, tokens: Sequence[int], rows: int) -> None:
        """Evaluate `tokens` in one pass, keeping the logits of the last `rows` positions; row 0 is current."""
        raise NotImplementedError(f"{self.name} does not verify drafts")

    def select_row(self, row: int) -> None:
        """Make row `row` of the last `eval_with_rows` what `logits()` and the sampler read."""
        raise NotImplementedError(f"{self.name} does not verify drafts")

    def truncate(self, n_tokens: int) -> bool:
        """Keep the first `n_tokens` of the KV cache; False when the model's state cannot drop tokens."""
        return False

    # ---------------------------------------------------------------- Runtime API

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text))

    def prompt_text(self, request: ChatRequest, *, add_generation_prompt: bool = True) -> str:
        """The prompt exactly as the model sees it: the chat template rendered for `request`."""
        return render_prompt(
            self.chat_template,
            request.messages,
            request.tools,
            enable_thinking=request.enable_thinking,
            add_generation_prompt=add_generation_prompt,
            bos_token=self._bos_text,
            eos_token=self._eos_text,
            options=request.template_options(),
        )

    def prefix_text(self, request: ChatRequest) -> str:
        """The conversation so far without a generation prompt, for prefill and save points.

        Qwen 3.5's template refuses a conversation with no user turn ("No user query found"), which
        is what a session's system prompt and tools are before the first message: then the text is
        rendered with a placeholder user turn and cut where that turn opens.
        """
        try:
            return self.prompt_text(request, add_generation_prompt=False)
        except QwenRuntimeError:
            if any(isinstance(m, UserMessage) for m in request.messages):
                raise
            text = self.next_turn_text(request)
            if text is None:
                raise
            return text

    def next_turn_text(self, request: ChatRequest) -> str | None:
        """The conversation as the next user message will find it: rendered with a placeholder user turn
        after it and cut where that turn opens. Not always the conversation rendered alone: Qwen 3.5's
        template keeps the thinking of the replies after the last user message and drops it from every
        earlier one. None for a template whose turns do not open with `<|im_start|>`."""
        placeholder = "\u2063siGit prefix end\u2063"
        with_user = dataclasses.replace(request, messages=(*request.messages, UserMessage(placeholder)))
        text = self.prompt_text(with_user, add_generation_prompt=False)
        at = text.find(placeholder)
        turn = text.rfind("<|im_start|>", 0, at) if at >= 0 else -1
        return text[:turn] if turn >= 0 else None

    def _checked_tokens(self, request: ChatRequest, prompt: str) -> list[int]:
        if not self.supports_images and request.images():
            raise ImageError(self.cannot_see())
        tokens = self.prompt_tokens(prompt)
        if len(tokens) >= self.context_size:
            raise ContextOverflowError(len(tokens), self.context_size)
        return tokens

    def _model_name(self) -> str:
        path = getattr(self, "model_path", None)
        return f"model {getattr(path, 'name', path)}"

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        cancel = cancel or CancelToken()
        prompt = self.prompt_text(request)
        tokens = self._checked_tokens(request, prompt)
        self._waiting.append(cancel)
        unhook = cancel.on_cancel(self._stop_prefill)
        try:
            with self._lock:
                self._waiting.remove(cancel)
                unhook()
                self.check_open()
                try:
                    yield from Generation(self, request, prompt, tokens, cancel).run()
                except Exception:
                    self.clear_cache_unlocked()  # a step that failed half-way leaves the cache unknown
                    raise
        finally:
            unhook()
            if cancel in self._waiting:
                self._waiting.remove(cancel)

    def _stop_prefill(self) -> None:
        """A waiting request was cancelled: the prefill it waits for stops part-way (where the backend can)."""
        stop = self._prefill_stop
        if stop is not None:
            stop()

    def prefill(self, request: ChatRequest, *, next_turn: bool = False, cancel: CancelToken | None = None) -> int:
        """Evaluate the conversation so far without the generation prompt (a session's system prompt and
        tools) into the KV cache: the next request that starts with it evaluates only the rest.

        `next_turn`: the conversation as the next user message will find it (`next_turn_text`), after
        a turn ended, and the state at its end kept as a turn checkpoint (on disk too): the next
        message, or a session resumed by another process, restores all of it instead of evaluating
        the last turn again. Only when what is cached or saved already reaches the last user message
        (else the tools or the system prompt changed, and this would evaluate the whole conversation
        for a prompt nobody may send): then 0."""
        prefix = self.next_turn_text(request) if next_turn else self.prefix_text(request)
        if prefix is None:
            return 0
        with self._lock:  # tokenizing too: a session closed meanwhile frees the model under a tokenizer
            self.check_open()
            tokens = self._checked_tokens(request, prefix)
            if not tokens:
                return 0
            waiter = _WaiterCancelled(self, cancel)
            try:
                cached = self.prefill_prefix(tokens)
                restored = self.last_restored
                if next_turn and cached < len(tokens) and cached < self._last_user_end(request, tokens):
                    log.info("next turn's prefix not evaluated: %d of %d tokens cached, short of the last "
                             "user message", cached, len(tokens))
                    return 0
                # the next turn's prefix in one piece from what was cached: where the next request,
                # restoring the same state, ends a piece too (its "reply" save point)
                if cached < len(tokens) and not (
                        self.eval_tokens(tokens[cached:], waiter) if next_turn
                        else self.eval_prompt(request, tokens, cached, waiter)):
                    return 0  # cancelled (or the request waiting behind it was): it stopped between batches
                if next_turn:
                    self.keep_prefix(tokens)
                    log.info("next turn's prefix ready: %d tokens, %d of them evaluated now", len(tokens),
                             len(tokens) - cached)
                if cached < len(tokens) or restored:
                    self._prefilled = (cached, len(tokens), restored)
            except Exception:
                self.clear_cache_unlocked()
                raise
            if request.offered_tools() and not waiter.cancelled:
                # the tool-call constraint's view of the vocabulary (a second on a 250k vocabulary), built
                # now rather than by the first request that offers tools
                started = time.perf_counter()
                self.lltokenizer()
                log.info("tool-call constraint's vocabulary view ready in %.2f s", time.perf_counter() - started)
        return len(tokens)

    def _last_user_end(self, request: ChatRequest, tokens: Sequence[int]) -> int:
        """Where the conversation up to its last user message ends inside `tokens` (0 without one)."""
        turn = [p.position for p in save_points(self, request, tokens) if p.kind == "turn"]
        return turn[0] if turn else 0

    def keep_prefix(self, tokens: Sequence[int]) -> None:
        """Keep the state of `tokens`, just evaluated, where the next turn finds it (a backend with a prompt
        cache saves it; here the live cache holds it)."""

    def clear_cache(self) -> None:
        """Forget the KV cache: the next request evaluates its whole prompt."""
        with self._lock:
            self.clear_cache_unlocked()


class Generation:
    """One request's token loop: prompt evaluation, sampling, constraint, decoding, events."""

    def __init__(
        self, rt: LocalRuntime, request: ChatRequest, prompt: str, tokens: list[int], cancel: CancelToken
    ) -> None:
        self.rt = rt
        self.request = request
        self.tokens = tokens
        self.cancel = cancel
        in_think = starts_in_think(prompt)
        offered = request.offered_tools()
        self.parser = ReplyParser(offered, starts_in_think=in_think)
        self.constraint: ToolCallConstraint | None = None
        if offered:
            self.constraint = ToolCallConstraint(
                rt.lltokenizer(),
                offered,
                request.tool_choice,
                thinking=request.enable_thinking and template_traits(rt.chat_template).thinks,
                starts_in_think=in_think,
                stop_tokens=sorted(rt._stop_ids),
                call_format=tool_call_format(rt.chat_template),
            )
            for warning in self.constraint.warnings:
                log.warning("%s", warning)
        self.detok = Utf8Detokenizer(rt.piece)
        self.stops = StopFilter(tuple(request.sampling.stop))
        self.completion_tokens = 0
        self.reasoning_tokens = 0
        self.budget_spent = False
        self.thinking_budget = default_thinking_budget(request)
        self.called = False
        self.restored = 0
        self.prefilled = 0
        self.drafter: Drafter | None = None
        #: a drafting runtime's controller while this request runs paused (no rollback snapshots): it times
        #: the one-token steps, what the snapshots' overhead is measured against
        self.paused: DraftController | None = None
        #: with it, what a free draft source would have proposed, compared with the reply (`Drafter.watch`)
        self.watcher: Drafter | None = None
        if rt.draft_source is not None:
            if rt.drafting_now():
                self.drafter = Drafter(rt, rt.draft_source, list(tokens), self._draft_limit, rt.draft_controller(),
                                       rt.max_draft)
            elif isinstance(policy := rt.draft_controller(), DraftController):
                self.paused = policy
                self.watcher = Drafter(rt, rt.draft_source, list(tokens), self._draft_limit, policy, rt.max_draft)

    def run(self) -> Iterator[Event]:
        rt, request = self.rt, self.request
        room = min(request.sampling.max_tokens, rt.context_size - len(self.tokens))
        if self.constraint is not None:
            self.constraint.set_budget(room)
        t0 = time.perf_counter()
        cached = rt.reuse_prefix(self.tokens)
        self.restored, self.prefilled = rt.take_prefilled(cached)
        if not rt.eval_prompt(request, self.tokens, cached, self.cancel):
            yield from self._end("cancelled", cached, t0, time.perf_counter())
            return
        t1 = time.perf_counter()
        sampler = rt.new_sampler(request.sampling)
        reason: FinishReason = "length"
        try:
            while True:
                if self.cancel.cancelled:
                    reason = "cancelled"
                    break
                if self.completion_tokens >= room:
                    reason = "length"
                    break
                batch = self._budget_close()
                for appended in batch:  # the penalties see what the model will have "said"
                    sampler.accept(appended)
                if not batch:
                    token = self._sample(sampler)
                    if rt.is_end(token):
                        reason = "stop"
                        break
                    batch = [token, *self._forced(token, sampler, room)]
                self.completion_tokens += len(batch)
                yield from self._emit(batch)
                if self.stops.hit:
                    reason = "stop"
                    break
                if self.completion_tokens < room:
                    self._evaluate(batch, room)
        finally:
            sampler.close()
            for drafter in (self.drafter, self.watcher):
                if drafter is not None:
                    drafter.finish()
        yield from self._end(reason, cached, t0, t1)

    def _evaluate(self, batch: list[int], room: int) -> None:
        if self.watcher is not None:
            self.watcher.watch(batch, room - self.completion_tokens)
        if self.paused is not None and len(batch) == 1:
            clock = self.paused.clock
            started = clock()
            self.rt.eval_tokens(batch)
            self.paused.plain_step(clock() - started)
        elif self.drafter is None:
            self.rt.eval_tokens(batch)
        else:
            self.drafter.advance(batch, room - self.completion_tokens)

    def _draft_limit(self, draft: list[int]) -> int:
        """How much of a draft may be evaluated: not past an end token, nothing the tool-call grammar forbids."""
        n = next((i for i, token in enumerate(draft) if self.rt.is_end(token)), len(draft))
        if self.constraint is not None and n:
            n = self.constraint.draft_prefix(draft[:n])
        return n

    def _sample(self, sampler: TokenSampler) -> int:
        if self.constraint is not None:
            self.constraint.apply(self.rt.logits())
            only = self.constraint.only_token
            if only is not None:  # one token allowed: no need to sample the whole vocabulary for it
                sampler.accept(only)
                return only
            return self.constraint.settle(sampler.sample())
        return sampler.sample()

    def _forced(self, token: int, sampler: TokenSampler, room: int) -> list[int]:
        """Consume the sampled token; the tokens the grammar then forces, consumed and counted."""
        if self.constraint is None:
            return []
        self.constraint.consume(token)
        if not self.rt.fast_forward:
            return []
        forced = self.constraint.forced_tokens()[: room - self.completion_tokens - 1]
        for f in forced:
            self.constraint.consume(f)
            sampler.accept(f)
        return forced

    def _budget_close(self) -> list[int]:
        """The tokens of `\\n</think>\\n\\n` once reasoning reaches `thinking_budget` (evaluated by run)."""
        budget = self.thinking_budget
        if budget is None or self.budget_spent or not self.parser.in_think or self.reasoning_tokens < budget:
            return []
        self.budget_spent = True
        close = self.rt.tokenize(THINK_CLOSE_TEXT)
        if self.constraint is not None:
            for token in close:
                self.constraint.consume(token)
        return close

    def _emit(self, batch: Sequence[int]) -> Iterator[Event]:
        for token in batch:
            thinking = self.parser.in_think
            text = self.stops.push(self.detok.push(token))
            if text:
                yield from self._parsed(self.parser.feed(text))
            if thinking or self.parser.in_think:
                self.reasoning_tokens += 1
            if self.stops.hit:
                return

    def _parsed(self, events: Sequence[Event]) -> Iterator[Event]:
        for event in events:
            if isinstance(event, ToolCallEvent | ToolCallError):
                cut = self.constraint.pop_cut() if self.constraint is not None else None
                if cut is not None and isinstance(event, ToolCallEvent):  # the budget closed it: say so
                    event = ToolCallEvent(dataclasses.replace(event.call, notes=(*event.call.notes, cut.note())))
            if isinstance(event, ToolCallEvent):
                self.called = True
            yield event

    def _end(self, reason: FinishReason, cached: int, t0: float, t1: float) -> Iterator[Event]:
        t2 = time.perf_counter()
        tail = self.detok.flush()
        if not self.stops.hit:
            tail = self.stops.push(tail) + self.stops.flush()
        if tail:
            yield from self._parsed(self.parser.feed(tail))
        yield from self._parsed(self.parser.finish(truncated=reason == "length"))
        draft = (self.drafter.report() if self.drafter is not None
                 else paused_report(self.paused, self.rt.max_draft) if self.paused is not None else DraftReport())
        if self.paused is not None:
            log.info("draft: paused for this request and %d more: no draft pays here even at 95%% acceptance "
                     "(verifying 1 + %d costs %.2f steps; the rollback snapshots add %.0f%% to every step), so "
                     "the model runs without them", self.paused.pause_left - 1, self.rt.max_draft,
                     draft.verify_cost, 100 * (self.paused.overhead() - 1))
        if self.drafter is not None:
            log.info("draft: length %d chosen most, verifying 1 + %d costs %.2f steps, acceptance %.0f%%%s",
                     draft.length, draft.length or self.rt.max_draft, draft.verify_cost, 100 * draft.acceptance,
                     ", backed off (only probes)" if draft.backed_off else "")
        if self.drafter is not None or self.paused is not None:
            self.rt.request_finished()
        yield Usage(
            prompt_tokens=len(self.tokens),
            cached_prompt_tokens=cached,
            completion_tokens=self.completion_tokens,
            reasoning_tokens=self.reasoning_tokens,
            prompt_ms=(t1 - t0) * 1000,
            generation_ms=(t2 - t1) * 1000,
            context_size=self.rt.context_size,
            restored_prompt_tokens=self.restored,
            prefilled_prompt_tokens=self.prefilled,
            drafted_tokens=self.drafter.drafted if self.drafter is not None else 0,
            accepted_draft_tokens=self.drafter.accepted if self.drafter is not None else 0,
            image_tokens=sum(1 for t in self.tokens if t < 0),  # images are negative placeholder ids
            draft_length=draft.length,
            draft_verify_cost=draft.verify_cost,
            draft_acceptance=draft.acceptance,
            draft_backed_off=draft.backed_off,
        )
        if reason == "cancelled":
            yield cancelled_event()
            return
        if reason == "stop" and self.called:
            reason = "tool_calls"
        detail = "; ".join(self.constraint.errors) if self.constraint is not None else ""
        yield Finished(reason, detail)


__all__ = [
    "REQUIRED_THINKING_CAP",
    "THINK_CLOSE_TEXT",
    "Generation",
    "LocalRuntime",
    "StopFilter",
    "TokenSampler",
    "Utf8Detokenizer",
    "default_thinking_budget",
    "starts_in_think",
]

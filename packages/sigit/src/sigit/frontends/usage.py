"""A turn's result in Claude Code's names (its `subtype`, our `Usage`): the headless JSON result and the
Claude CLI's speak them."""

from __future__ import annotations

from ..events import Usage

RESULT_SUBTYPES = {"end_turn": "success", "max_tokens": "success", "permission_denied": "success",
                   "max_rounds": "error_max_turns"}
"""A turn's `subtype` by stop reason, as Claude Code reports it (refused calls end `success` and are listed
in `permission_denials`); anything else (loop guard, error, a refused prompt, cancel) is `error_during_execution`."""


def claude_usage(usage: Usage) -> dict[str, int | float | bool]:
    """Claude Code's token counts (here reads + creation = input_tokens: every prompt token is one or
    the other), with speculative decoding's counts and what its controller decided under our own names."""
    return {
        "input_tokens": usage.prompt_tokens,
        "output_tokens": usage.completion_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
        "cache_creation_input_tokens": usage.cache_creation_tokens,
        # ours: speculative decoding's drafted tokens and how many the model confirmed
        "drafted_tokens": usage.drafted_tokens,
        "accepted_draft_tokens": usage.accepted_draft_tokens,
        "draft_length": usage.draft_length,
        "draft_verify_cost": round(usage.draft_verify_cost, 3),
        "draft_acceptance": round(usage.draft_acceptance, 3),
        "draft_backed_off": usage.draft_backed_off,
    }

"""The JSON body of a chat completion: messages, tools, tool_choice and sampling mapped for the server.

Besides OpenAI's own fields the body carries `top_k`, `min_p`, `repeat_penalty` and
`chat_template_kwargs`, which vLLM, SGLang and llama-server read (and others ignore).
"""

from __future__ import annotations

from typing import Any

from ...errors import QwenRuntimeError
from ...images import Image
from ...types import AssistantMessage, ChatRequest, Message, ToolSpec, UserMessage, message_to_dict


def openai_body(request: ChatRequest, model: str) -> dict[str, Any]:
    s = request.sampling
    body: dict[str, Any] = {
        "model": model,
        "messages": [openai_message(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": s.temperature,
        "top_p": s.top_p,
        "max_tokens": s.max_tokens,
        "presence_penalty": s.presence_penalty,
        "frequency_penalty": s.frequency_penalty,
        # not OpenAI's, but vLLM, SGLang and llama-server read them from the body
        "top_k": s.top_k,
        "min_p": s.min_p,
        "repeat_penalty": s.repeat_penalty,
        # preserve_thinking / reasoning_effort only when asked for: the server's template decides
        "chat_template_kwargs": {"enable_thinking": request.enable_thinking, **request.template_options()},
    }
    if s.seed is not None:
        body["seed"] = s.seed
    if s.stop:
        body["stop"] = list(s.stop)
    if request.tools:
        body["tools"] = [t.to_openai() for t in request.tools]
        body["tool_choice"] = tool_choice(request.tool_choice, request.tools)
    return body


def tool_choice(choice: str, tools: tuple[ToolSpec, ...]) -> str | dict[str, Any]:
    if choice in ("auto", "required", "none"):
        return choice
    if not any(t.name == choice for t in tools):
        raise QwenRuntimeError(
            f"tool_choice names the tool {choice!r}, which is not among the offered tools "
            f"({', '.join(t.name for t in tools)})"
        )
    return {"type": "function", "function": {"name": choice}}


def openai_message(message: Message) -> dict[str, Any]:
    out = message_to_dict(message)
    out.pop("reasoning_content", None)  # never re-sent: templates drop it and servers may reject it
    if isinstance(message, AssistantMessage) and message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json()}}
            for c in message.tool_calls
        ]
    if isinstance(message, UserMessage) and message.images:
        out["content"] = [{"type": "text", "text": message.content}] + [
            {"type": "image_url", "image_url": {"url": data_url(image)}} for image in message.images
        ]
    return out


def merge_extra(body: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """Adds the caller's extra fields; a nested object is merged one level deep rather than replaced."""
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(body.get(key), dict):
            body[key] = {**body[key], **value}
        else:
            body[key] = value
    return body


def data_url(image: Image | str) -> str:
    """An image as a data: URL (servers cannot read the client's files); data: URLs pass through."""
    if isinstance(image, str) and image.startswith("data:"):
        return image
    return Image.coerce(image).data_url()

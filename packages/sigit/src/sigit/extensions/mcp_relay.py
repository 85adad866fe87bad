"""An MCP transport over a message relay: servers that live in another process's memory.

The Claude Agent SDKs run an app's in-process MCP servers (`create_sdk_mcp_server`) themselves and
reach them through `mcp_message` control requests; a relay is the one coroutine that carries a
JSON-RPC message there and returns the answer (None for a notification).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
Relay = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]
"""Sends one JSON-RPC message to the server and returns its reply (None: nothing to read)."""


@contextlib.asynccontextmanager
async def relay_transport(relay: Relay) -> AsyncIterator[Streams]:
    """(read, write) streams for `ClientSession`, each message written carried by `relay`."""
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](32)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](32)

    async def carry(payload: dict[str, Any]) -> None:
        try:
            answer = await relay(payload)
        except Exception as exc:
            if "id" in payload:  # the request waits for an answer: it gets the failure as its error
                answer = {"jsonrpc": "2.0", "id": payload["id"], "error": {"code": -32603, "message": str(exc)}}
            else:
                return
        if answer is None or "id" not in payload:
            return  # a notification or a response of ours: nothing comes back
        answer = {**answer, "id": payload["id"]}
        try:
            message = types.jsonrpc_message_adapter.validate_python(answer)
        except ValueError as exc:
            await to_client.send(exc)
            return
        await to_client.send(SessionMessage(message))

    async def pump() -> None:
        async with from_client, anyio.create_task_group() as calls:
            async for outgoing in from_client:
                payload = outgoing.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                calls.start_soon(carry, payload)  # concurrent calls each wait for their own answer

    async with anyio.create_task_group() as group:
        group.start_soon(pump)
        try:
            yield from_server, to_server
        finally:
            group.cancel_scope.cancel()
            to_client.close()
            to_server.close()

"""A real stdio MCP server whose tool takes nested pydantic models (published with `$defs`/`$ref`),
for the schema-enforcement test: the server itself validates every call it gets."""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

app = MCPServer("schemas")


class Person(BaseModel):
    name: str = Field(min_length=1, max_length=12)
    age: int | None = Field(default=None, ge=0, le=150)


class Attendee(BaseModel):
    person: Person
    role: Literal["host", "guest"] = "guest"


class Event(BaseModel):
    title: str = Field(max_length=16)
    minutes: int = Field(ge=5, le=600)
    attendees: list[Attendee] = Field(max_length=2)
    rooms: dict[str, int] = Field(default_factory=dict, max_length=2)


@app.tool()
def create_event(event: Event) -> str:
    """Create a calendar event."""
    return f"created {event.title!r} ({event.minutes} min, {len(event.attendees)} attendees)"


if __name__ == "__main__":
    app.run()

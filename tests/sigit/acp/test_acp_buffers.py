"""An editor's unsaved buffer is what sigit edits and what its permission prompt shows (issue 27)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import text_block
from acp.schema import ReadTextFileResponse, WriteTextFileResponse

from .conftest import RecordingClient, running_agent, write_scenario


class BufferClient(RecordingClient):
    """An editor with unsaved changes: reads get the buffer, writes land in it, the disk stays as saved."""

    def __init__(self, buffers: dict[str, str]) -> None:
        super().__init__("allow_once")
        self.buffers = buffers

    async def read_text_file(self, session_id: str, path: str, **kw: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        return ReadTextFileResponse(content=self.buffers.get(path, Path(path).read_text()))

    async def write_text_file(self, session_id: str, path: str, content: str, **kw: Any) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()


async def test_multi_edit_previews_and_edits_the_editor_buffer_not_the_disk(
    tmp_path: Path, config_dir: Path, project: Path
) -> None:
    target = project / "app.py"
    target.write_text("alpha = 1\n")  # saved; the buffer below has a line the disk does not
    buffer = "alpha = 1\nbeta = 2\n"
    scenario = write_scenario(
        tmp_path / "s.json",
        [
            {
                "tool_calls": [
                    {
                        "name": "multi_edit",
                        "arguments": {
                            "path": "app.py",
                            "edits": [
                                {"old_text": "alpha = 1", "new_text": "alpha = 10"},
                                {"old_text": "beta = 2", "new_text": "beta = 20"},
                            ],
                        },
                    }
                ]
            },
            {"text": "done"},
        ],
    )
    client = BufferClient({str(target): buffer})
    async with running_agent(client, scenario, config_dir, fs=True) as conn:
        session = await conn.new_session(cwd=str(project))
        await conn.prompt(session_id=session.session_id, prompt=[text_block("bump both")])
    (tool_call, _options) = client.permissions[0]
    asked = next(c for c in tool_call.content if c.type == "diff")
    assert (asked.path, asked.old_text, asked.new_text) == (str(target), buffer, "alpha = 10\nbeta = 20\n")
    assert client.writes == [(str(target), "alpha = 10\nbeta = 20\n")]
    assert target.read_text() == "alpha = 1\n"  # the editor saves when the user says so
    done = client.of("tool_call_update")[-1]
    assert done.status == "completed"

"""Issue 35's third audit: a sandboxed command cannot change what siGit itself reads next time (its
settings, trust records, sessions, prompt cache, logs), also when those lie inside the workspace (a
session started in the home directory). `sigit -p` (`sigit.cli.main` in this process; the commands in the
real OS sandbox), a scripted model, effects judged on disk."""

from __future__ import annotations

from pathlib import Path

from qwen_runtime.testing.server import ScriptedServer

from ..in_process import run_sigit_main


def test_a_command_cannot_write_sigits_own_directories_inside_the_workspace(tmp_path: Path) -> None:
    home = tmp_path / "home"  # the workspace holds siGit's directories, as `~` does
    config, cache, state = home / ".config" / "sigit", home / ".cache" / "sigit", home / ".local" / "state" / "sigit"
    config.mkdir(parents=True)
    settings = config / "settings.toml"
    settings.write_text('[permissions]\nmode = "default"\n')
    hook = f'[[hooks.session_start]]\\ncommand = "touch {tmp_path / "RAN"}"\\n'
    commands = [
        f"printf '{hook}' >> {settings}",
        f"echo '{{}}' > {config / 'trusted_folders.json'}",
        f"mkdir -p {cache / 'prompt-cache'} && echo x > {cache / 'prompt-cache' / 'planted.bin'}",
        f"mkdir -p {state} && echo x > {state / 'planted.log'}",
        "echo ok > ordinary.txt",
    ]
    turns = [{"tool_calls": [{"name": "run_command", "arguments": {"command": c}} for c in commands]}, {"text": "done"}]
    env = {
        "SIGIT_CONFIG_DIR": str(config),
        "SIGIT_CACHE_DIR": str(cache),
        "SIGIT_STATE_DIR": str(state),
        "HF_HUB_OFFLINE": "1",
        "SIGIT_PERMISSION_DEFAULT": None,
    }
    with ScriptedServer(turns) as server:
        proc = run_sigit_main(
            [
                "-p",
                "tidy up",
                "--model",
                f"openai:{server.base_url}#scripted-qwen",
                "--permission-mode",
                "bypass",
            ],
            cwd=home,
            env=env,
            timeout=120,
        )
        results = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert proc.returncode == 0, proc.stderr
    assert settings.read_text() == '[permissions]\nmode = "default"\n'
    assert not (config / "trusted_folders.json").exists()
    assert not (cache / "prompt-cache" / "planted.bin").exists() and not (state / "planted.log").exists()
    assert all("Exit code 0" not in r for r in results[:4]), results
    assert (home / "ordinary.txt").read_text() == "ok\n"  # the rest of the workspace stays writable

"""The agent loop, its hook pipeline and compaction: what `AgentSession` drives (events: `sigit.events`)."""

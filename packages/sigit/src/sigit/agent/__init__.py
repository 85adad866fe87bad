"""The agent loop, its events and compaction: the part every frontend drives."""

"""The peers' own parser test cases for Qwen's tool-call formats, as data: what the model wrote and what
the peer's test expects, each citing the file and test it comes from (issue 51)."""

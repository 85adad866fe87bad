"""Models and their files: the registry, downloads, GGUF headers, runtime names, chat templates.

`registry` and `download` find and fetch a model; `gguf_header`/`gguf_info` read what a GGUF says of
itself; `projector` pairs a vision projector with its model; `naming` turns a name (`qwen3-8b`,
`./x.gguf`, `openai:URL`) into a runtime; `chat_format` renders prompts with the model's own template
(`templates/`), `context_window` picks the window memory allows, and `report` says what all of
this detects about one file.
"""

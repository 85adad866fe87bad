"""Speed: what makes the same model answer sooner on the same machine.

CPU placement (`cpus`), measured settings (`tuning`; `qwen-runtime tune` measures them with
`backends.llamacpp.calibration`), the prompt cache and its save
points (`prompt_cache`, `save_points`), and speculative decoding: where drafts come from
(`draft_sources`, `drafting`), when drafting pays (`draft_control`) and the costs one process learned
for the next (`learned_costs`).
"""

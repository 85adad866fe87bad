import sys
import tomllib

text = open("config/app.toml", encoding="utf-8").read()
data = tomllib.loads(text)
expected = {
    "server": {"host": "0.0.0.0", "port": 8000, "workers": 4},
    "database": {"url": "postgresql://app@db:6432/app", "pool_size": 10},
    "cache": {"url": "redis://cache:6379/0", "ttl_s": 300},
}
problems = [] if data == expected else [f"config is {data}"]
for comment in ("# Service configuration. Ops edits this by hand: keep the comments.",
                "# one per core on the small instances", "# the pgbouncer port in production"):
    if comment not in text:
        problems.append(f"lost the comment {comment!r}")
if list(data) != ["server", "database", "cache"]:
    problems.append(f"tables in the order {list(data)}")
if problems:
    sys.exit("\n".join(problems))

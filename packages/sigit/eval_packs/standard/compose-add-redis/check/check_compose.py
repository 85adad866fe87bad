"""Reads the block-style YAML subset compose files use here (mappings, lists of scalars), so
the check needs nothing beyond the standard library."""
import sys


def parse(lines):
    rows = [(len(l) - len(l.lstrip(" ")), l.strip()) for l in lines if l.strip() and not l.strip().startswith("#")]

    def block(i, depth):
        if rows[i][1].startswith("- "):
            items = []
            while i < len(rows) and rows[i][0] == depth and rows[i][1].startswith("- "):
                items.append(scalar(rows[i][1][2:]))
                i += 1
            return items, i
        mapping = {}
        while i < len(rows) and rows[i][0] == depth:
            key, _, rest = rows[i][1].partition(":")
            if not _:
                raise ValueError(f"not a mapping line: {rows[i][1]!r}")
            i += 1
            if rest.strip():
                mapping[key] = scalar(rest)
            elif i < len(rows) and rows[i][0] > depth:
                mapping[key], i = block(i, rows[i][0])
            else:
                mapping[key] = None
        return mapping, i

    value, end = block(0, 0)
    if end != len(rows):
        raise ValueError(f"bad indentation at {rows[end][1]!r}")
    return value


def scalar(text):
    text = text.strip()
    return text[1:-1] if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"" else text


text = open("docker-compose.yml", encoding="utf-8").read()
if "\t" in text:
    sys.exit("tabs in docker-compose.yml")
try:
    data = parse(text.splitlines())
except (ValueError, IndexError) as error:
    sys.exit(f"docker-compose.yml does not parse: {error}")
services = data.get("services") or {}
problems = []
if sorted(services) != ["db", "redis", "web"]:
    problems.append(f"services are {list(services)}")
web = services.get("web") or {}
if sorted(web.get("depends_on") or []) != ["db", "redis"]:
    problems.append(f"web depends on {web.get('depends_on')}")
if web.get("environment") != {"LOG_LEVEL": "debug", "DATABASE_URL": "postgres://shop@db/shop"}:
    problems.append(f"web environment is {web.get('environment')}")
if web.get("ports") != ["8080:80"] or web.get("image") != "shop/web:1.4":
    problems.append("web's image or ports changed")
if (services.get("redis") or {}).get("image") != "redis:7-alpine":
    problems.append(f"redis is {services.get('redis')}")
if services.get("db") != {"image": "postgres:16", "volumes": ["dbdata:/var/lib/postgresql/data"]}:
    problems.append("db changed")
if data.get("volumes") != {"dbdata": None}:
    problems.append("top-level volumes changed")
if problems:
    sys.exit("\n".join(problems))

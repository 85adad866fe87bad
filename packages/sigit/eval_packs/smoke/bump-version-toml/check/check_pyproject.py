import sys
import tomllib

with open("pyproject.toml", "rb") as f:
    data = tomllib.load(f)
project = data["project"]
problems = []
if project.get("version") != "1.3.0":
    problems.append(f"version is {project.get('version')!r}")
if project.get("dependencies") != ["httpx>=0.27", "rich>=13"]:
    problems.append(f"dependencies are {project.get('dependencies')!r}")
if project.get("name") != "weather-report" or project.get("requires-python") != ">=3.10":
    problems.append("name or requires-python changed")
if project.get("scripts") != {"weather": "weather.cli:main"}:
    problems.append("scripts changed")
if data.get("tool") != {"pytest": {"ini_options": {"testpaths": ["tests"]}}}:
    problems.append("tool tables changed")
if problems:
    sys.exit("; ".join(problems))

import configparser
import sys

data = open("config/printer.ini", "rb").read()
lines = data.split(b"\r\n")
problems = []
if lines[-1] != b"":
    problems.append("the last line does not end with CRLF")
if any(b"\n" in line or b"\r" in line for line in lines):
    problems.append("some line does not end with CRLF")
config = configparser.ConfigParser()
config.read_string(data.decode("utf-8"))
values = {s: dict(config[s]) for s in config.sections()}
if values != {"printer": {"name": "Front desk", "dpi": "600", "duplex": "yes"}, "queue": {"max_jobs": "20"}}:
    problems.append(f"values are {values}")
if problems:
    sys.exit("\n".join(problems))

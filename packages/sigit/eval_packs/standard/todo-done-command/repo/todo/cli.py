"""todo add TEXT | todo list"""

import argparse
import sys

from todo.store import TodoStore


def main(argv=None, store_path="todo.json"):
    parser = argparse.ArgumentParser(prog="todo")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("add").add_argument("text")
    sub.add_parser("list")
    args = parser.parse_args(argv)
    store = TodoStore(store_path)
    if args.command == "add":
        item = store.add(args.text)
        print(f"added {item['id']}")
    elif args.command == "list":
        for item in store.load():
            mark = "x" if item["done"] else " "
            print(f"[{mark}] {item['id']} {item['text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

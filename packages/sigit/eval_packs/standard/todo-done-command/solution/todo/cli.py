"""todo add TEXT | todo list | todo done ID"""

import argparse
import sys

from todo.store import TodoStore


def main(argv=None, store_path="todo.json"):
    parser = argparse.ArgumentParser(prog="todo")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("add").add_argument("text")
    sub.add_parser("list")
    sub.add_parser("done").add_argument("id", type=int)
    args = parser.parse_args(argv)
    store = TodoStore(store_path)
    if args.command == "add":
        item = store.add(args.text)
        print(f"added {item['id']}")
    elif args.command == "list":
        for item in store.load():
            mark = "x" if item["done"] else " "
            print(f"[{mark}] {item['id']} {item['text']}")
    elif args.command == "done":
        try:
            store.mark_done(args.id)
        except KeyError:
            print(f"no item {args.id}", file=sys.stderr)
            return 1
        print(f"done {args.id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

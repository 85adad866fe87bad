#!/bin/sh
# usage: tail_errors.sh LOG
grep ' ERROR ' "$1" | tail -n 20

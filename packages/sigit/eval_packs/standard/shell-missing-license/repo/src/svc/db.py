import sqlite3
# SPDX-License-Identifier: Apache-2.0

def export_text(rows):
    return "\n".join(" ".join(f"{k}={v}" for k, v in row.items()) for row in rows)

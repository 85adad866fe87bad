"""Plain-text tables for the CLI."""


def render(headers, rows):
    """Columns padded to their widest cell and separated by two spaces; no trailing spaces."""
    cells = [headers, *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    return "\n".join(lines)

"""Report exporters by name: each module registers a function rows -> text."""

from report.exporters.csv_exporter import export_csv
from report.exporters.text_exporter import export_text

EXPORTERS = {
    "csv": export_csv,
    "text": export_text,
}

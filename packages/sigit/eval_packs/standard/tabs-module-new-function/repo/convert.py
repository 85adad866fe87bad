"""Unit conversions for the 2009 firmware tools (indented with tabs, like the rest of that code)."""


def inches_to_cm(inches):
	return inches * 2.54


def pounds_to_kg(pounds):
	if pounds < 0:
		raise ValueError("negative weight")
	return pounds * 0.45359237

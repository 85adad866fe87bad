"""Unit conversions for the 2009 firmware tools (indented with tabs, like the rest of that code)."""


def inches_to_cm(inches):
	return inches * 2.54


def pounds_to_kg(pounds):
	if pounds < 0:
		raise ValueError("negative weight")
	return pounds * 0.45359237


def fahrenheit_to_celsius(fahrenheit):
	"""Degrees Fahrenheit in Celsius, rounded to 1 decimal."""
	if fahrenheit < -459.67:
		raise ValueError("below absolute zero")
	return round((fahrenheit - 32) * 5 / 9, 1)

"""Tests of vcctl (manage.py vcctl): parsing, printing, the HTTP client, and live calls."""

"""The console's shared pieces: layout context, tables, fragments, live updates, charts.

Every app's pages use these; each app keeps its own pages, forms and templates (STYLE.md,
"Where shared pieces go").
"""

"""The HTML frame of every report page: a title, a small stylesheet (tables, the fixture
banner), the body; no scripts."""

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
th, td {{ border: 1px solid #bbb; padding: 2px 6px; }}
th {{ background: #eee; }}
.fixture {{ background: #fdd; border: 2px solid #c00; padding: 0.5em; font-weight: bold; }}
</style></head>
<body>
{body}
</body></html>
"""

"""Renders GitHub-flavoured Markdown from stdin to HTML on stdout, as GitHub
renders a step summary (raw HTML allowed, so a leak would show)."""

import sys

import cmarkgfm
from cmarkgfm.cmark import Options

sys.stdout.write(
    cmarkgfm.github_flavored_markdown_to_html(
        sys.stdin.read(), options=Options.CMARK_OPT_UNSAFE
    )
)

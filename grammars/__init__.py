"""The Lark grammar of tsdsl specs, shipped as package data (``tsdsl.grammars``)."""

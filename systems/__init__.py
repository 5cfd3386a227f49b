"""The reference transition systems as ``.ts`` specs, shipped as package data (``tsdsl.systems``)."""

"""Pictures of dependency trees and derivations, as self-contained SVG and HTML.

``tsdsl draw`` (:mod:`.pages`) draws the trees of a CoNLL-U file, marking crossing arcs and,
against a gold file, wrong heads and labels (with ``--deps``, the enhanced graphs of the DEPS
column, empty nodes included); ``tsdsl trace --html`` (:mod:`.steps`) draws a derivation step
by step.  Both rest on one arc-diagram layout (:mod:`.arcs`) and the XML helpers of
:mod:`.svg`.  Pure Python, no dependency: the output opens in any browser.
"""

from .arcs import Arc, Diagram, crossing_pairs
from .pages import draw_graph, draw_sentences, parse_ranges, render_html, render_svg
from .steps import render_trace_html

__all__ = ["Arc", "Diagram", "crossing_pairs", "draw_graph", "draw_sentences", "parse_ranges", "render_html", "render_svg",
           "render_trace_html"]

"""Learning: train, save, load and run parsers for any spec (averaged perceptron, greedy or beam).

The spec's IR decides the classifier outputs, its compiled kernel runs feature extraction,
scoring, the oracle and the search without the GIL; this package holds the Python side:
treebank preparation, the training schedule, the model directory and the parser API.
"""

from .parser import Parser, load_parser
from .train import TrainOptions, train

__all__ = ["Parser", "TrainOptions", "load_parser", "train"]

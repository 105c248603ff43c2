"""AveragedWeights (vineparse/cascade/perceptron.py) against the average it stands for: the mean of the weights
after every step, summed step by step."""
import numpy as np

from vineparse.cascade.perceptron import AveragedWeights


def test_averaged_is_the_mean_of_the_weights_over_the_steps():
    rng = np.random.default_rng(0)
    start = rng.normal(size=(6, 3)).astype(np.float32)
    averaged = AveragedWeights(start)
    current, total, steps = start.astype(np.float64), np.zeros((6, 3)), 0
    for _ in range(40):
        total += current                      # the weights in force at this step
        steps += 1
        for _ in range(int(rng.integers(0, 3))):
            rows, cols = rng.integers(0, 6, 4), rng.integers(0, 3, 4)    # repeated entries add up
            step = float(rng.choice([-1.0, 1.0]))
            averaged.add((rows, cols), step)
            np.add.at(current, (rows, cols), step)
        averaged.tick()
    total += current
    steps += 1
    np.testing.assert_allclose(averaged.weights, current)
    np.testing.assert_allclose(averaged.averaged(), (total / steps).astype(np.float32), rtol=1e-5, atol=1e-6)
    assert averaged.averaged().dtype == np.float32

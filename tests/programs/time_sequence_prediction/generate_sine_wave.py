# Ported from pytorch/examples@77f55b9:time_sequence_prediction/generate_sine_wave.py (BSD-3-Clause, see tests/programs/LICENSES.md).
# Changed: the imports (typedtensor in place of torch) and the data size (L and N cut from 1000 and 100).
import numpy as np
import typedtensor as torch

np.random.seed(2)

T = 20
L = 100
N = 20

x = np.empty((N, L), 'int64')
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype('float64')
torch.save(data, open('traindata.pt', 'wb'))

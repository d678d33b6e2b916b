# torch.nn.modules.rnn's classes that typedtensor has (typedtensor/nn/modules/_paths.py)

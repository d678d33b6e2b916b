# torch.nn.modules.transformer's classes that typedtensor has (typedtensor/nn/modules/_paths.py)

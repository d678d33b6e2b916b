# torch.nn.modules.linear_cross_entropy_options's classes that typedtensor has (typedtensor/nn/modules/_paths.py)

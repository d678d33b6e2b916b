# torch.nn.modules.upsampling's classes that typedtensor has (typedtensor/nn/modules/_paths.py)

# Flow matching components

from surya.common.order.predictor import OrderPredictor, load_order_predictor

__all__ = ["OrderPredictor", "load_order_predictor"]

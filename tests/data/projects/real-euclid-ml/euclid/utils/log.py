
import euclid.settings as settings


def log_epoch(epoch, epochs, total_loss, batches):
    if settings.log_training_progress and epoch % settings.training_progress_iterations_per_print == 0:
        print(
            "Epoch "
            + str(epoch)
            + " out of "
            + str(epochs)
            + ", Loss: "
            + str(total_loss / batches)
        )
from ultrack.core.linking.processing import add_links

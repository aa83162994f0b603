class_map = {

    # classes of old TotalSegmentator v1
    "skin": {
        1: "skin"
    }
}


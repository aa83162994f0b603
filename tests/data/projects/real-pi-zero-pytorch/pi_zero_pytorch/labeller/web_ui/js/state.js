// Shared client-side state. Server data (videos, labels, tasks, recap state) is
// treated as authoritative: mutations POST to the API and then refetch.
export const state = {
    videos: [],
    labels: {},          // filename -> label record from /api/labels
    tasks: [],
    activeVideo: null,
    activePlayers: [],   // multiple <video> elements when num_views > 1
    currentTimestep: 0,
    currentCutoff: null, // last computed global advantage cutoff
    recapState: null,
    viewpointNames: {},
    activeFolders: [],   // RECAP folders loaded this session
};

export function activeLabel() {
    return state.activeVideo ? state.labels[state.activeVideo.filename] : null;
}

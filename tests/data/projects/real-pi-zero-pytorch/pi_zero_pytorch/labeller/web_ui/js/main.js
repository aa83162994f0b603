import { state } from './state.js';
import { initLabelling } from './labelling.js';
import { initPlayerControls } from './player.js';
import { initActions } from './actions.js';
import { initProprio } from './proprio.js';
import { initTraining, fetchValueNetworks } from './training.js';
import { initRecap, fetchRecapState } from './recap.js';
import { updateUIVisibility } from './render.js';
import { fetchData, checkConversionStatus, hideLoadingOverlay } from './data.js';

hideLoadingOverlay();

initLabelling();
initPlayerControls();
initActions();
initProprio();
initRecap();
initTraining();

updateUIVisibility();

async function initialize() {
    await fetchRecapState();

    if (state.recapState && state.recapState.enabled) {
        // RECAP mode: wait for the user to load a data folder
        hideLoadingOverlay();
        updateUIVisibility();
        await fetchValueNetworks();
        await fetchData();
        return;
    }

    // Standalone folder mode: poll conversion progress, then fetch data
    checkConversionStatus();
    fetchValueNetworks();
}

initialize();

import { state, activeLabel } from './state.js';
import { apiFetch, postJson } from './api.js';
import { fetchData, checkConversionStatus, showLoadingOverlay, hideLoadingOverlay, markRecapLoading } from './data.js';
import { updateUIVisibility } from './render.js';
import { clearCarousel } from './carousel.js';

const recapSidebar = document.getElementById('recap-sidebar');
const recapTaskList = document.getElementById('recap-task-list');
const recapGeneralistStatus = document.getElementById('recap-generalist-status');
const recapPolicyStatus = document.getElementById('recap-policy-status');
const btnPretrain = document.getElementById('btn-pretrain');
const btnFinetunePolicy = document.getElementById('btn-finetune-policy');
const activeFoldersContainer = document.getElementById('active-folders');

export async function fetchRecapState() {
    try {
        state.recapState = await apiFetch('/api/recap/state');
        if (state.recapState.enabled) {
            recapSidebar.style.display = 'block';
            renderRecapSidebar();
        } else {
            recapSidebar.style.display = 'none';
        }
        updateUIVisibility();
    } catch (error) { }
}

function updateActiveFoldersDisplay() {
    activeFoldersContainer.innerHTML = '';
    for (const folder of state.activeFolders) {
        const item = document.createElement('div');
        item.className = 'active-folder-item' + (folder.active ? ' active' : '');
        item.innerHTML = `<span class="folder-icon">📁</span><span class="folder-path">${folder.path}</span>`;
        item.onclick = () => {
            state.activeFolders.forEach(f => f.active = false);
            folder.active = true;
            updateActiveFoldersDisplay();
            updateFolderHighlighting();
        };
        activeFoldersContainer.appendChild(item);
    }
}

function updateFolderHighlighting() {
    document.querySelectorAll('.recap-data-item').forEach(item => {
        item.classList.remove('active');
        for (const folder of state.activeFolders) {
            if (folder.active && item.textContent.includes(folder.id)) {
                item.classList.add('active');
            }
        }
    });
}

function miniButton(text, onClick, extraClass = '') {
    const btn = document.createElement('button');
    btn.className = `btn-recap-mini ${extraClass}`.trim();
    btn.textContent = text;
    btn.onclick = () => onClick(btn);
    return btn;
}

async function recapOp(url, body, btn) {
    const data = await postJson(url, body, btn);
    if (data.status === 'ok') await fetchRecapState();
    return data;
}

const recapPretrain = (btn) => recapOp('/api/recap/pretrain', {}, btn);
const recapSpecialize = (taskName, btn) => recapOp('/api/recap/specialize', { task_name: taskName }, btn);
const recapCollect = (taskName, iterId, btn) => recapOp('/api/recap/collect', { task_name: taskName, iter_id: iterId }, btn);
const recapIterate = (taskName, iterId, btn) => recapOp('/api/recap/iterate', { task_name: taskName, iter_id: iterId }, btn);

async function recapSimulate(taskName, iterId, btn) {
    const data = await recapOp('/api/recap/simulate_collection', { task_name: taskName, iter_id: iterId }, btn);
    if (data.status === 'ok' && state.activeVideo && state.activeVideo.filename.includes(taskName)) {
        await fetchData();
    }
}

async function loadFolder(requestBody, { status, detail, folderPath = null, dataId = null }) {
    showLoadingOverlay(status, detail);
    try {
        const data = await postJson('/api/recap/load_data', requestBody);
        if (data.status !== 'ok') {
            hideLoadingOverlay();
            return;
        }

        if (folderPath) {
            state.activeFolders.forEach(f => f.active = false);
            const existing = state.activeFolders.find(f => f.path === folderPath);
            if (existing) {
                existing.active = true;
            } else {
                state.activeFolders.push({ path: folderPath, id: dataId, active: true });
            }
            updateActiveFoldersDisplay();
            updateFolderHighlighting();
        }

        // Clear current workspace; the conversion poller re-fetches when ready
        state.videos = [];
        state.labels = {};
        state.activeVideo = null;
        updateUIVisibility();
        document.getElementById('video-list').innerHTML = '';
        document.getElementById('frame-timeline').innerHTML = '';
        clearCarousel();
        markRecapLoading();
        checkConversionStatus();
    } catch (error) {
        hideLoadingOverlay();
    }
}

function loadPretrained() {
    loadFolder({ is_pretrained: true }, {
        status: 'Loading Pretrained data...',
        detail: 'pretrained_data',
    });
}

function loadRecapData(taskName, iterId, dataId) {
    loadFolder({ task_name: taskName, iter_id: iterId, data_id: dataId }, {
        status: 'Loading RECAP data...',
        detail: `${taskName} / iter ${iterId} / ${dataId}`,
        folderPath: `${taskName}/iter_${iterId}/${dataId}`,
        dataId,
    });
}

function buildDataList(items, onClickItem) {
    const dataList = document.createElement('div');
    dataList.className = 'recap-data-list';
    for (const { text, onClick } of items) {
        const dataItem = document.createElement('div');
        dataItem.className = 'recap-data-item';
        dataItem.textContent = text;
        dataItem.onclick = onClick;
        dataList.appendChild(dataItem);
    }
    return dataList;
}

export function renderRecapSidebar() {
    const recap = state.recapState;
    if (!recap || !recap.enabled) return;

    const isReady = recap.pretrained.actor && recap.pretrained.critic;
    recapGeneralistStatus.textContent = isReady ? 'Ready' : 'Not Ready';
    recapGeneralistStatus.className = `recap-status-value ${isReady ? 'success' : 'fail'}`;
    btnPretrain.style.display = isReady ? 'none' : 'block';

    // Policy finetuning needs binarized advantages on the active episode
    const label = activeLabel();
    const hasBinarized = label && label.advantage_ids && label.advantage_ids.some(id => id !== -1);
    btnFinetunePolicy.disabled = !hasBinarized;

    const isFinetuned = recap.tasks.some(t => t.iterations.some(i => i.id > 0 && i.actor));
    recapPolicyStatus.textContent = isFinetuned ? 'Ready' : 'Not Ready';
    recapPolicyStatus.className = `recap-status-value ${isFinetuned ? 'success' : 'fail'}`;

    recapTaskList.innerHTML = '';

    if (recap.pretrained_data) {
        const ptGroup = document.createElement('div');
        ptGroup.className = 'recap-task-group';
        ptGroup.innerHTML = `
            <div class="recap-task-header">
                <span class="recap-task-name">PRETRAINED DATASET</span>
            </div>
        `;
        ptGroup.appendChild(buildDataList([{
            text: `📁 Original Dataset (${recap.pretrained_data.video_count} videos)`,
            onClick: loadPretrained,
        }]));
        recapTaskList.appendChild(ptGroup);
    }

    for (const task of recap.tasks) {
        const taskGroup = document.createElement('div');
        taskGroup.className = 'recap-task-group';

        const taskHeader = document.createElement('div');
        taskHeader.className = 'recap-task-header';
        const taskName = document.createElement('span');
        taskName.className = 'recap-task-name';
        taskName.textContent = task.name.replace(/_/g, ' ').toUpperCase();
        taskHeader.appendChild(taskName);
        if (isReady && task.iterations.length === 0) {
            taskHeader.appendChild(miniButton('SFT', (btn) => recapSpecialize(task.name, btn)));
        }
        taskGroup.appendChild(taskHeader);

        for (const iter of task.iterations) {
            const isTrained = iter.actor && iter.critic;
            const hasData = iter.data.length > 0;
            const indicatorClass = isTrained ? 'indicator-trained' : (hasData ? 'indicator-data' : 'indicator-none');
            const statusText = isTrained ? 'Trained' : (hasData ? 'Collecting' : 'Init');

            const iterRow = document.createElement('div');
            iterRow.className = 'recap-iteration';
            iterRow.innerHTML = `
                <div class="iteration-num">${iter.id}</div>
                <div class="iteration-status">
                    <div class="iteration-info">
                        <div class="iteration-indicator ${indicatorClass}"></div>
                        <span>${statusText}</span>
                    </div>
                    <div class="iteration-actions"></div>
                </div>
            `;
            const actions = iterRow.querySelector('.iteration-actions');
            actions.appendChild(miniButton('Collect', (btn) => recapCollect(task.name, iter.id, btn)));
            actions.appendChild(miniButton('Sim', (btn) => recapSimulate(task.name, iter.id, btn), 'btn-recap-sim'));
            if (hasData) {
                actions.appendChild(miniButton('Iterate', (btn) => recapIterate(task.name, iter.id, btn)));
            }
            taskGroup.appendChild(iterRow);

            if (hasData) {
                taskGroup.appendChild(buildDataList(iter.data.map(dataObj => ({
                    text: `📁 ${dataObj.id} (${dataObj.video_count} videos)`,
                    onClick: () => loadRecapData(task.name, iter.id, dataObj.id),
                }))));
            }
        }

        recapTaskList.appendChild(taskGroup);
    }
}

export function initRecap() {
    btnPretrain.onclick = () => recapPretrain(btnPretrain);
}

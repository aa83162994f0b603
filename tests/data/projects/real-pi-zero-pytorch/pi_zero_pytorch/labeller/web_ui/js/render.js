import { state, activeLabel } from './state.js';
import { renderCharts } from './charts.js';
import { repaintCarousel } from './carousel.js';
import { playVideo, jumpToFrame } from './player.js';
import { assignTask } from './labelling.js';
import { renderRecapSidebar } from './recap.js';

const videoList = document.getElementById('video-list');
const taskList = document.getElementById('task-list');
const timelineContainer = document.getElementById('frame-timeline');
const statusIcon = document.getElementById('label-status-icon');
const timeLabel = document.getElementById('label-time-container');

export function updateUIVisibility() {
    const hasActive = state.activeVideo !== null;
    const mainContentElements = [
        timelineContainer,
        document.getElementById('value-chart-container'),
        document.getElementById('advantage-chart-container'),
        document.querySelector('.player-container'),
        document.querySelector('.carousel-container'),
        document.getElementById('reset-btn'),
        document.getElementById('current-frames'),
        document.getElementById('current-task'),
        timeLabel,
        document.querySelector('.action-group'),
    ];
    mainContentElements.forEach(el => {
        if (el) el.classList.toggle('hidden-element', !hasActive);
    });

    const isRecap = state.recapState && state.recapState.enabled;
    const hasVideos = state.videos.length > 0;

    // Persistent actions (training/export) stay visible whenever data exists
    const persistentGroup = document.querySelector('.action-group-persistent');
    if (persistentGroup) {
        persistentGroup.classList.toggle('hidden-element', !(hasVideos || isRecap));
    }

    const rolloutsSidebar = document.querySelector('.sidebar');
    const tasksSidebar = document.querySelector('.task-sidebar');
    if (rolloutsSidebar && tasksSidebar) {
        rolloutsSidebar.style.display = (hasVideos || isRecap) ? 'block' : 'none';
        tasksSidebar.style.display = (isRecap && hasVideos) ? 'block' : 'none';

        if (!hasVideos) {
            const mainContent = document.querySelector('.main-content');
            let noTrajMsg = document.getElementById('no-trajectories-msg');
            if (!noTrajMsg) {
                noTrajMsg = document.createElement('div');
                noTrajMsg.id = 'no-trajectories-msg';
                noTrajMsg.className = 'info-message';
                const message = isRecap
                    ? 'Please click on a folder in the RECAP sidebar to start labelling.'
                    : 'Please load a folder or select it via command line.';
                noTrajMsg.innerHTML = `
                    <div class="info-icon">📂</div>
                    <h2>No trajectories loaded</h2>
                    <p>${message}</p>
                `;
                mainContent.appendChild(noTrajMsg);
            }
            noTrajMsg.style.display = 'flex';
        } else {
            const noTrajMsg = document.getElementById('no-trajectories-msg');
            if (noTrajMsg) noTrajMsg.style.display = 'none';
        }
    }
}

export function updateHeaderStatus(filename) {
    const label = state.labels[filename];
    if (label && label.task_completed !== -1) {
        statusIcon.textContent = label.task_completed === 1 ? '✓' : '✗';
        statusIcon.className = label.task_completed === 1 ? 'status-success' : 'status-fail';
        timeLabel.textContent = `T=${label.marked_timestep}`;
        timeLabel.style.display = 'inline-block';
    } else {
        statusIcon.textContent = '';
        timeLabel.style.display = 'none';
    }

    const interventionBadge = document.getElementById('intervention-badge');
    interventionBadge.style.display = (label && label.is_expert_intervention) ? 'inline-block' : 'none';

    const taskBadge = document.getElementById('current-task');
    if (label && label.task_id) {
        taskBadge.textContent = label.task_id;
        taskBadge.style.display = 'inline-block';
    } else {
        taskBadge.style.display = 'none';
    }
}

export function renderList() {
    videoList.innerHTML = '';
    state.videos.forEach(video => {
        const label = state.labels[video.filename];

        let statusHtml = '';
        if (label && label.task_completed !== -1) {
            statusHtml = label.task_completed === 1
                ? '<span class="video-status-icon status-success">✓</span>'
                : '<span class="video-status-icon status-fail">✗</span>';
        }

        const taskTag = label && label.task_id
            ? `<span class="task-tag" title="${label.task_id}">${label.task_id}</span>`
            : '';

        const li = document.createElement('li');
        li.className = 'video-item';
        li.dataset.filename = video.filename;
        li.innerHTML = `
            <div class="video-info-container">
                <span class="item-name">${video.filename} ${taskTag}</span>
            </div>
            ${statusHtml}
        `;
        li.onclick = () => playVideo(video, li);
        if (state.activeVideo && state.activeVideo.filename === video.filename) {
            li.classList.add('active');
        }
        videoList.appendChild(li);
    });
}

export function renderTasks() {
    taskList.innerHTML = '';
    const label = activeLabel();
    const isAssignable = !!state.activeVideo;

    state.tasks.forEach(task => {
        const isActive = label && label.task_id === task.id;

        const div = document.createElement('div');
        div.className = `task-item ${isActive ? 'active' : ''} ${isAssignable ? 'assignable' : ''}`;
        div.innerHTML = `
            <div class="task-header">
                <div class="task-name emphasis">${task.name}</div>
            </div>
            <div class="task-details">
                <div class="task-field">
                    <div class="task-label">Max Duration</div>
                    <div class="task-value">${task.max_duration} frames</div>
                </div>
            </div>
            <div class="task-footer">
                <div class="task-slug">${task.id}</div>
            </div>
            <button class="btn-assign">${isActive ? 'Re-assign' : 'Assign to Episode'}</button>
        `;
        const btn = div.querySelector('.btn-assign');
        btn.onclick = (e) => {
            e.stopPropagation();
            assignTask(task.id, btn);
        };
        taskList.appendChild(div);
    });
}

export function renderTimeline(numFrames, filename) {
    timelineContainer.innerHTML = '';
    const label = state.labels[filename];

    for (let i = 0; i < numFrames; i++) {
        const container = document.createElement('div');
        container.className = 'frame-container';

        const indicator = document.createElement('div');
        indicator.className = 'advantage-indicator';
        if (label && label.advantage_ids && label.advantage_ids[i] !== -1) {
            const advId = label.advantage_ids[i];
            indicator.classList.add(advId === 1 ? 'pos' : 'neg');
            indicator.title = `Advantage ID: ${advId}`;
        }

        const invalidIndicator = document.createElement('div');
        invalidIndicator.className = 'invalidated-indicator';
        invalidIndicator.style.visibility = (label && label.invalidated) ? 'visible' : 'hidden';

        const isExpertFrame = label && label.expert_segment && label.expert_segment[i];
        const expertIndicator = document.createElement('div');
        expertIndicator.className = 'expert-indicator';
        expertIndicator.style.visibility = isExpertFrame ? 'visible' : 'hidden';

        const box = document.createElement('div');
        box.className = 'frame-box';
        box.dataset.index = i;

        if (label && label.returns) {
            const ret = label.returns[i];
            if (ret !== null && !isNaN(ret)) {
                const isSuccess = label.task_completed === 1;
                const intensity = Math.max(0.1, 1 + ret);
                box.style.backgroundColor = isSuccess
                    ? `rgba(34, 197, 94, ${intensity})`
                    : `rgba(239, 68, 68, ${intensity})`;
                box.title = `Return: ${ret.toFixed(4)}`;
                if (ret === 0) box.classList.add(isSuccess ? 'success' : 'fail');
            }
        } else if (label && label.marked_timestep === i) {
            box.classList.add(label.task_completed === 1 ? 'success' : 'fail');
        }

        if (isExpertFrame) box.classList.add('edited');
        if (label && label.invalidated) box.classList.add('invalidated');
        box.onclick = () => jumpToFrame(i);

        container.append(indicator, invalidIndicator, box, expertIndicator);
        timelineContainer.appendChild(container);
    }
}

// Re-render everything derived from server state. Called after mutations
// followed by a labels refetch, so all views stay consistent.
export function renderAll() {
    renderList();
    renderTasks();
    if (state.activeVideo) {
        updateHeaderStatus(state.activeVideo.filename);
        renderTimeline(state.activeVideo.frames, state.activeVideo.filename);
        renderCharts(state.activeVideo.filename);
        repaintCarousel();
    }
    renderRecapSidebar();
}

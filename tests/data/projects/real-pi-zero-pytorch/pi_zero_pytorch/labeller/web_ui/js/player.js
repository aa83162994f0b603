import { state } from './state.js';
import { updateHeaderStatus, updateUIVisibility, renderTimeline, renderTasks } from './render.js';
import { renderCharts } from './charts.js';
import { fetchFrames, scrollToFrame } from './carousel.js';
import { scheduleActionFetch } from './actions.js';
import { fetchProprio } from './proprio.js';
import { labelFrame, labelIntervention } from './labelling.js';

const currentFilename = document.getElementById('current-filename');
const currentFrames = document.getElementById('current-frames');

function mainPlayer() {
    return state.activePlayers[0] || document.getElementById('main-player');
}

export function jumpToFrame(index) {
    const video = state.activeVideo;
    if (!video) return;
    if (index < 0 || index >= video.frames) return;

    const player = mainPlayer();
    if (!player || !player.duration) return;

    const seekTime = (index / video.frames) * player.duration;
    state.activePlayers.forEach(p => { p.currentTime = seekTime; });
    if (state.activePlayers.length === 0) player.currentTime = seekTime;

    state.currentTimestep = index;
    scheduleActionFetch(video.filename, index);
    scrollToFrame(index);

    document.querySelectorAll('.frame-box').forEach((box, i) => {
        box.classList.toggle('current', i === index);
    });
}

export function stepFrame(delta) {
    if (!state.activeVideo) return;
    const next = Math.min(state.activeVideo.frames - 1, Math.max(0, state.currentTimestep + delta));
    if (next !== state.currentTimestep) jumpToFrame(next);
}

function buildMultiViewPlayers(video, wrapper) {
    const grid = document.createElement('div');
    grid.className = `video-grid views-${video.num_views}`;

    for (let v = 0; v < video.num_views; v++) {
        const item = document.createElement('div');
        item.className = 'player-item';

        const vPlayer = document.createElement('video');
        vPlayer.src = `${video.url}.${v}.mp4`;
        vPlayer.controls = true;
        vPlayer.muted = true;
        vPlayer.playsInline = true;

        const label = document.createElement('div');
        label.className = 'player-label';
        label.textContent = state.viewpointNames[v] || `View ${v}`;

        item.append(label, vPlayer);
        grid.appendChild(item);
        state.activePlayers.push(vPlayer);
    }
    wrapper.appendChild(grid);

    // Keep all views in lockstep: mirror play/pause/rate, and re-seek any
    // player that drifts more than 0.15s from the one the user interacted with.
    const sync = (event) => {
        const target = event.target;
        if (target.seeking_sync) return;

        state.activePlayers.forEach(p => {
            if (p === target) return;
            if (event.type === 'play') p.play().catch(() => { });
            if (event.type === 'pause') p.pause();
            if (event.type === 'ratechange') p.playbackRate = target.playbackRate;
            if (event.type === 'timeupdate' || event.type === 'seeking') {
                if (Math.abs(p.currentTime - target.currentTime) > 0.15) {
                    p.seeking_sync = true;
                    p.currentTime = target.currentTime;
                    setTimeout(() => { p.seeking_sync = false; }, 50);
                }
            }
        });
    };

    state.activePlayers.forEach(p => {
        ['play', 'pause', 'seeking', 'timeupdate', 'ratechange'].forEach(ev => p.addEventListener(ev, sync));
        p.load();
    });
    state.activePlayers[0].play().catch(() => { });
}

export function playVideo(video, element) {
    state.activeVideo = video;

    document.querySelectorAll('.video-item').forEach(el => el.classList.remove('active'));
    if (element) {
        element.classList.add('active');
    } else {
        document.querySelectorAll('.video-item').forEach(item => {
            if (item.dataset.filename === video.filename) item.classList.add('active');
        });
    }

    const wrapper = document.querySelector('.video-wrapper');
    wrapper.innerHTML = '';
    state.activePlayers = [];

    if (video.num_views > 1) {
        buildMultiViewPlayers(video, wrapper);
    } else {
        const vPlayer = document.createElement('video');
        vPlayer.id = 'main-player';
        vPlayer.src = video.url;
        vPlayer.controls = true;
        vPlayer.muted = true;
        wrapper.appendChild(vPlayer);
        state.activePlayers = [vPlayer];
        vPlayer.load();
        vPlayer.play().catch(() => { });
    }

    currentFilename.textContent = video.filename;
    currentFrames.textContent = `${video.frames} frames`;

    updateHeaderStatus(video.filename);
    updateUIVisibility();
    renderTimeline(video.frames, video.filename);
    renderCharts(video.filename);
    renderTasks();
    fetchFrames(video.filename);
    fetchProprio(video.filename);
}

export function initPlayerControls() {
    document.getElementById('step-prev-btn').onclick = () => stepFrame(-1);
    document.getElementById('step-next-btn').onclick = () => stepFrame(1);

    document.addEventListener('keydown', (e) => {
        if (!state.activeVideo) return;
        const t = e.target;
        if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
        if (e.metaKey || e.ctrlKey || e.altKey) return;

        const player = mainPlayer();
        switch (e.key) {
            case ' ':
                e.preventDefault();
                if (!player) return;
                if (player.paused) {
                    state.activePlayers.forEach(p => p.play().catch(() => { }));
                    if (state.activePlayers.length === 0) player.play().catch(() => { });
                } else {
                    state.activePlayers.forEach(p => p.pause());
                    if (state.activePlayers.length === 0) player.pause();
                }
                break;
            case 'ArrowLeft':
                e.preventDefault();
                stepFrame(-1);
                break;
            case 'ArrowRight':
                e.preventDefault();
                stepFrame(1);
                break;
            case 'Home':
                e.preventDefault();
                jumpToFrame(0);
                break;
            case 'End':
                e.preventDefault();
                jumpToFrame(state.activeVideo.frames - 1);
                break;
            case 's':
            case 'S':
                labelFrame(state.activeVideo.filename, state.currentTimestep, true);
                break;
            case 'f':
            case 'F':
                labelFrame(state.activeVideo.filename, state.currentTimestep, false);
                break;
            case 'i':
            case 'I':
                labelIntervention(state.activeVideo.filename, state.currentTimestep);
                break;
        }
    });
}
